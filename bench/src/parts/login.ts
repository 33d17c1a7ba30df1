/**
 * The login part (bench/README.md, "How it measures"): the password step (`POST /login`) against
 * argon2id verifications with the same parameters and concurrency, in this process. Rules:
 * - the authorization requests are prepared before each measurement and not timed;
 * - the password steps are sent by the load generator over keep-alive connections, not by
 *   `fetch`: on 2 shared cores a heavier client would be counted against the server;
 * - any answer but 200 fails the run.
 */
import argon2 from 'argon2';
import type { Figure } from '../budgets.ts';
import type { Context } from '../context.ts';
import { runLoad } from '../load.ts';
import { ratioFigure, roundLogger } from '../measure.ts';
import { compare } from '../paired.ts';
import { passwordStepRequest, prepareLogin } from '../sign-in.ts';

export const LOGIN = 'login password step vs argon2id';

// apps/auth/src/accounts/password.ts: argon2id, 19 MiB, 2 passes, 1 lane.
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** `count` jobs, `concurrency` at a time; answers jobs per second. */
async function pool(count: number, concurrency: number, job: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

export async function login(context: Context): Promise<Figure[]> {
  const { settings, log } = context;
  const { sqlite: stack } = await context.stacks();
  const password = 'correct horse battery staple';
  const hash = await argon2.hash(password, ARGON2_OPTIONS);
  const result = await compare({
    name: LOGIN,
    subject: async () => {
      const prepared = await Promise.all(Array.from({ length: settings.logins }, () => prepareLogin(stack)));
      const requests = prepared.map((p, i) => passwordStepRequest(stack, p, stack.users[i % stack.users.length]!));
      let next = 0;
      const load = await runLoad({
        port: stack.auth.port,
        connections: settings.loginConcurrency,
        requests: settings.logins,
        script: () => ({
          next: () => requests[next++]!,
          onResponse: (status, body) => {
            if (status !== 200) throw new Error(`password step answered ${status}: ${body.toString()}`);
          },
        }),
      });
      return load.perSecond;
    },
    baseline: () =>
      pool(settings.logins, settings.loginConcurrency, async () => {
        if (!(await argon2.verify(hash, password))) throw new Error('argon2 verify failed');
      }),
    rounds: settings.rounds,
    // A password step runs about 60 times a second: one warm-up leaves its code in V8's first
    // tiers, where no long-running server keeps it; several bring it to the state the other
    // comparisons measure after their warm-up.
    warmups: settings.loginWarmups,
    onRound: roundLogger(log, 'login (sqlite)', 'req/s'),
  });
  return [ratioFigure(result)];
}
