/**
 * The token endpoint's parts (bench/README.md, "Token path"): the refresh grant (rotating) and
 * client_credentials, on SQLite and on PostgreSQL. Rules:
 * - Gatehouse is compared directly with the floor of the same grant on the same engine
 *   (floor-adapter.ts): the memory baseline plus the least durable work our guarantees require
 *   there for that grant, one process per grant and engine, started on first use;
 * - each floor is also compared with the memory baseline, for information, in fewer rounds; the
 *   refresh floor also with the checked refresh floor (checked-floor.ts: the same plus the grant,
 *   session and account checks and the audit row of apps/auth), and Gatehouse with the checked
 *   floor, for information, in as many rounds as the budget's: they show how much of the budget
 *   those guarantees take on their own, and how much Gatehouse's own code takes;
 * - a refresh chain follows its own rotations (each request presents the token the last answer
 *   gave); any other answer than 200 with the three tokens fails the run;
 * - Gatehouse's chains start from real sign-ins, one user per chain; the baselines mint theirs.
 */
import { join } from 'node:path';
import type { Figure } from '../budgets.ts';
import type { FloorKind } from '../baselines/floor-adapter.ts';
import type { Context } from '../context.ts';
import { httpRequest, repeat, type Script } from '../load.ts';
import { CpuMeter, measure, ratioFigure, roundLogger, type Target } from '../measure.ts';
import { compare } from '../paired.ts';
import { basic, signIn } from '../sign-in.ts';
import type { Engine } from '../stack.ts';

export type Grant = 'refresh grant' | 'client_credentials';

/** The figure of Gatehouse against its floor (a budget) and of the floor against the memory baseline (reported). */
export const tokenFigure = (grant: Grant, engine: Engine) => `${grant} (${engine}) vs its floor`;
const floorFigure = (grant: Grant, engine: Engine) => `${grant} floor (${engine}) vs memory baseline`;
const checkedFigure = (engine: Engine) => `refresh grant checked floor (${engine}) vs its floor`;
const againstCheckedFigure = (engine: Engine) => `refresh grant (${engine}) vs the checked floor`;

interface TokenTarget extends Target {
  readonly app: { clientId: string; clientSecret: string };
  readonly machine: { clientId: string; clientSecret: string };
  /** The current refresh token of each chain (rotation replaces it on every answer). */
  readonly chains: string[];
}

/** The refresh chains of a server: connection i presents `chains[i]` and keeps the token each answer rotates to. */
export function refreshScript(target: Pick<TokenTarget, 'port' | 'app' | 'chains'>) {
  const auth = basic(target.app.clientId, target.app.clientSecret);
  return (i: number): Script => ({
    next: () =>
      httpRequest(target.port, 'POST', '/oauth2/v1/token', { Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, `grant_type=refresh_token&refresh_token=${encodeURIComponent(target.chains[i]!)}`),
    onResponse(status, body) {
      const answer = JSON.parse(body.toString('utf8')) as { refresh_token?: string; access_token?: string; id_token?: string };
      if (status !== 200 || !answer.refresh_token || !answer.access_token || !answer.id_token) throw new Error(`refresh grant on port ${target.port} answered ${status}: ${body.toString('utf8')}`);
      target.chains[i] = answer.refresh_token;
    },
  });
}

function clientCredentialsScript(target: TokenTarget) {
  const request = httpRequest(
    target.port,
    'POST',
    '/oauth2/v1/token',
    { Authorization: basic(target.machine.clientId, target.machine.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    `grant_type=client_credentials&scope=${encodeURIComponent('movies:read')}`,
  );
  return repeat(request);
}

type ProviderMessage = { port: number; secrets: { app: string; api: string }; refreshTokens: string[] };

/** oidc-provider with its memory adapter (baselines/memory-provider.ts); with a floor, the floor of that kind on that engine. */
async function provider(context: Context, name: string, engine: Engine | undefined, floor?: { url: string; kind: FloorKind | 'checked' }): Promise<TokenTarget> {
  const { sqlite } = await context.stacks();
  const args = [String(context.settings.tokenConnections), sqlite.audience, ...(floor ? [floor.url, floor.kind] : [])];
  const forked = await context.processes.fork<ProviderMessage>(name, './baselines/memory-provider.ts', args);
  return {
    port: forked.message.port,
    pid: forked.child.pid!,
    cpu: new CpuMeter(engine),
    app: { clientId: 'app', clientSecret: forked.message.secrets.app },
    machine: { clientId: 'api', clientSecret: forked.message.secrets.api },
    chains: forked.message.refreshTokens,
  };
}

const memoryBaseline = (context: Context) => context.shared('memory-baseline', () => provider(context, 'memory-provider', undefined));

/** The floor of `grant` on `engine`: refresh tokens in the engine for the refresh grant, the client row for client_credentials. */
function floor(context: Context, grant: Grant, engine: Engine): Promise<TokenTarget> {
  return floorOfKind(context, grant === 'refresh grant' ? 'refresh' : 'client', engine);
}

/** A floor of `kind` on `engine` (the checked refresh floor: checked-floor.ts), in a database file or tables of its own. */
function floorOfKind(context: Context, kind: FloorKind | 'checked', engine: Engine): Promise<TokenTarget> {
  return context.shared(`floor-${kind}-${engine}`, async () => {
    const stacks = await context.stacks();
    const url = engine === 'sqlite' ? `sqlite:${join(context.processes.dir, `floor-${kind}.db`)}` : stacks.postgres.databaseUrl.auth;
    return provider(context, `floor-${kind}-${engine}`, engine, { url, kind });
  });
}

/** The authorization server on `engine`; its refresh chains are signed in on first use. */
function gatehouse(context: Context, engine: Engine, withChains: boolean): Promise<TokenTarget> {
  return context.shared(`gatehouse-${engine}-${withChains}`, async () => {
    const stack = (await context.stacks())[engine];
    const chains = withChains ? await Promise.all(stack.users.slice(0, context.settings.tokenConnections).map((user) => signIn(stack, user))) : [];
    return { port: stack.auth.port, pid: stack.auth.child.pid!, cpu: new CpuMeter(engine), app: stack.app, machine: stack.machine, chains };
  });
}

async function compareTargets(context: Context, name: string, label: string, subject: TokenTarget, baseline: TokenTarget, grant: Grant, rounds: number): Promise<Figure> {
  const { settings, log } = context;
  const script = grant === 'refresh grant' ? refreshScript : clientCredentialsScript;
  subject.cpu.reset();
  baseline.cpu.reset();
  const result = await compare({
    name,
    subject: () => measure(subject, settings.seconds, settings.tokenConnections, script(subject)),
    baseline: () => measure(baseline, settings.seconds, settings.tokenConnections, script(baseline)),
    rounds,
    onRound: roundLogger(log, label, 'req/s'),
  });
  return ratioFigure(result, subject.cpu, baseline.cpu);
}

/** One grant: Gatehouse against its floor on each engine, then each floor against the memory baseline. */
export async function tokenGrant(context: Context, grant: Grant): Promise<Figure[]> {
  const figures: Figure[] = [];
  const engines: Engine[] = ['sqlite', 'postgres'];
  for (const engine of engines) {
    const subject = await gatehouse(context, engine, grant === 'refresh grant');
    figures.push(await compareTargets(context, tokenFigure(grant, engine), `${grant} (${engine}) vs floor`, subject, await floor(context, grant, engine), grant, context.settings.rounds));
  }
  for (const engine of engines) {
    figures.push(await compareTargets(context, floorFigure(grant, engine), `${grant} floor (${engine}) vs memory`, await floor(context, grant, engine), await memoryBaseline(context), grant, context.settings.infoRounds));
  }
  if (grant === 'refresh grant') {
    for (const engine of engines) {
      const checked = await floorOfKind(context, 'checked', engine);
      figures.push(await compareTargets(context, checkedFigure(engine), `refresh grant checked floor (${engine}) vs floor`, checked, await floor(context, grant, engine), grant, context.settings.rounds));
      figures.push(await compareTargets(context, againstCheckedFigure(engine), `refresh grant (${engine}) vs checked floor`, await gatehouse(context, engine, true), checked, grant, context.settings.rounds));
    }
  }
  return figures;
}
