/**
 * Runs a fuzz property against a started app. Rules:
 * - the seed and the run count come from FUZZ_SEED and FUZZ_RUNS, else from fixed defaults (the
 *   bounded run of `pnpm test`); FUZZ_PATH replays one shrunk counterexample;
 * - the seed, run count, request count, time and status histogram are printed for every run;
 * - each request goes on the wire alone (runs are sequential), and its answer must keep the
 *   invariants of invariants.ts plus the app's own `check`;
 * - with a `snapshot` (a digest of the app's stored state), a refused request (4xx) must leave it
 *   unchanged: the digest after it equals the digest after the previous request;
 * - after the run the app must still answer its liveness probe with 200;
 * - a failure throws one error with the counterexample, what broke, and the command that replays it.
 */
import fc from 'fast-check';
import { checkResponse } from './invariants.ts';
import { describeRequest } from './requests.ts';
import type { ShapeCheck } from './shapes.ts';
import { sendRaw, type FuzzRequest, type FuzzResponse } from './send-raw.ts';

/** The seed of the bounded run in `pnpm test` (any fixed number would do). */
export const DEFAULT_SEED = 20_261_123;

export interface FuzzSettings {
  readonly seed: number;
  readonly numRuns: number;
  /** A counterexample path to replay (FUZZ_PATH), as fast-check printed it. */
  readonly path: string | undefined;
  /** A test timeout that fits the run count (about 40 ms a request, at least 60 s). */
  readonly timeoutMs: number;
}

/** Seed, run count and replay path from the environment, else the bounded defaults. */
export function fuzzSettings(defaultRuns: number, env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const seedText = env.FUZZ_SEED?.trim();
  const seed = seedText ? Number(seedText) : DEFAULT_SEED;
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${JSON.stringify(seedText)}`);
  const runsText = env.FUZZ_RUNS?.trim();
  const numRuns = runsText ? Number(runsText) : defaultRuns;
  if (!Number.isSafeInteger(numRuns) || numRuns < 1) throw new Error(`FUZZ_RUNS must be a positive integer, got ${JSON.stringify(runsText)}`);
  const path = env.FUZZ_PATH?.trim() || undefined;
  return { seed: seed | 0, numRuns, path, timeoutMs: Math.max(60_000, numRuns * 40) };
}

/** The app under test. */
export interface FuzzTarget {
  /** `http://127.0.0.1:<port>` of the started app. */
  readonly url: string;
  /** The app's error shapes for 4xx answers (see shapes.ts: `anyShape(problemJson, …)`). */
  readonly errorShape: ShapeCheck;
  /** A digest of the app's stored state; a refused request must not change it. */
  readonly snapshot?: () => Promise<string>;
  /** More invariants of this app: answer a sentence for each broken one. */
  readonly check?: (request: FuzzRequest, response: FuzzResponse) => string[] | Promise<string[]>;
  /** The liveness probe (default `GET /healthz`, expected 200). */
  readonly liveness?: FuzzRequest;
  /** Per-request timeout (default 10 s). */
  readonly timeoutMs?: number;
}

export interface FuzzReport {
  readonly name: string;
  readonly seed: number;
  readonly numRuns: number;
  /** Requests sent, shrinking included. */
  readonly requests: number;
  readonly durationMs: number;
  /** How many answers had each status. */
  readonly statuses: Readonly<Record<number, number>>;
}

export interface RunOptions {
  /** Default run count when FUZZ_RUNS is not set. */
  readonly runs: number;
  /** The command that runs this test, for the replay line (e.g. `pnpm --filter @gatehouse/api exec vitest run test/fuzz/x.test.ts`). */
  readonly command: string;
  /** Settings other than the environment's (tests of the harness). */
  readonly settings?: FuzzSettings;
  /** Where the summary line goes (default console.log). */
  readonly log?: (line: string) => void;
}

class InvariantBroken extends Error {}

/** Sends `requests` to the target and checks every answer; throws with a replayable report on the first broken invariant. */
export async function runFuzz(name: string, target: FuzzTarget, requests: fc.Arbitrary<FuzzRequest>, options: RunOptions): Promise<FuzzReport> {
  const settings = options.settings ?? fuzzSettings(options.runs);
  const log = options.log ?? ((line: string) => console.log(line));
  const statuses: Record<number, number> = {};
  let sent = 0;
  let state = target.snapshot ? await target.snapshot() : '';
  const started = performance.now();
  log(`[fuzz] ${name}: seed=${settings.seed} runs=${settings.numRuns}${settings.path ? ` path=${settings.path}` : ''}`);

  const property = fc.asyncProperty(requests, async (request) => {
    let response: FuzzResponse;
    try {
      response = await sendRaw(target.url, request, { timeoutMs: target.timeoutMs });
    } catch (error) {
      throw new InvariantBroken(`no answer: ${(error as Error).message}`);
    }
    sent += 1;
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    const problems = checkResponse(request, response, target.errorShape);
    if (target.check) problems.push(...(await target.check(request, response)));
    if (target.snapshot) {
      const after = await target.snapshot();
      if (response.status >= 400 && after !== state) problems.push(`the refused request (${response.status}) changed the stored state`);
      state = after;
    }
    if (problems.length > 0) {
      const excerpt = response.text.length > 800 ? `${response.text.slice(0, 800)}…` : response.text;
      throw new InvariantBroken(`${problems.join('\n')}\nanswer: ${response.status} ${response.header('content-type') ?? ''}\n${excerpt}`);
    }
  });

  const details = await fc.check(property, {
    seed: settings.seed,
    numRuns: settings.numRuns,
    ...(settings.path ? { path: settings.path } : {}),
    endOnFailure: false,
  });
  const durationMs = Math.round(performance.now() - started);
  const histogram = Object.entries(statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  log(`[fuzz] ${name}: ${sent} requests in ${(durationMs / 1000).toFixed(1)} s (${histogram})`);

  if (details.failed) {
    const counterexample = details.counterexample?.[0] as FuzzRequest | undefined;
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      [
        `[fuzz] ${name} failed after ${details.numRuns} runs (${details.numShrinks} shrinks), seed ${details.seed}, path ${details.counterexamplePath}`,
        counterexample ? describeRequest(counterexample) : '(no counterexample)',
        error,
        `replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} ${options.command}`,
      ].join('\n'),
    );
  }

  const probe = target.liveness ?? { method: 'GET', path: '/healthz', headers: [] };
  const alive = await sendRaw(target.url, probe, { timeoutMs: target.timeoutMs }).catch((error: Error) => error);
  if (alive instanceof Error || alive.status !== 200) {
    throw new Error(`[fuzz] ${name}: after ${sent} requests the app no longer answers ${probe.method} ${probe.path} with 200: ${alive instanceof Error ? alive.message : alive.status}`);
  }
  return { name, seed: settings.seed, numRuns: settings.numRuns, requests: sent, durationMs, statuses };
}
