/**
 * The suite's settings, read from the environment once, here (no other module of the suite reads
 * `process.env`). Rules:
 * - every number is a positive integer; anything else stops the suite with the variable's name;
 * - `BENCH_ONLY` is a comma list of the parts' selectors (parts.ts) or their groups; an unknown
 *   name stops the suite with the names it knows;
 * - unset means the default written next to each setting below.
 */

export interface Settings {
  /** BENCH_SECONDS: seconds per side and round (2). */
  readonly seconds: number;
  /** BENCH_ROUNDS: rounds of each comparison that has a budget (8). */
  readonly rounds: number;
  /** BENCH_INFO_ROUNDS: rounds of each comparison printed for information only (2). */
  readonly infoRounds: number;
  /** BENCH_CONNECTIONS: connections of the API's loads (32). */
  readonly connections: number;
  /** BENCH_TOKEN_CONNECTIONS: connections of the token endpoint's loads, and refresh chains (16). */
  readonly tokenConnections: number;
  /** BENCH_LOGINS: password steps per measurement (48). */
  readonly logins: number;
  /** BENCH_LOGIN_CONCURRENCY: password steps at once, and argon2id verifications at once (8). */
  readonly loginConcurrency: number;
  /** BENCH_LOGIN_WARMUPS: warm-up measurements of each side of the login comparison (4). */
  readonly loginWarmups: number;
  /** BENCH_ONLY: the selectors of the parts to run (all of them). */
  readonly only: ReadonlySet<string>;
  /** Not BENCH_NO_BUILD=1: build the apps first. */
  readonly build: boolean;
  /** BENCH_KEEP=1: keep the logs and databases. */
  readonly keep: boolean;
  /** BENCH_CPU_PROF: a folder where every server process writes a V8 CPU profile on exit. */
  readonly cpuProfileDir: string | undefined;
  /** BENCH_NODE_OPTIONS: NODE_OPTIONS of the Gatehouse processes, to try runtime flags. */
  readonly nodeOptions: string | undefined;
}

export class SettingsError extends Error {}

/**
 * Reads the settings. `selectors` are the parts' own names; `groups` name several of them at once.
 */
export function readSettings(env: NodeJS.ProcessEnv, selectors: readonly string[], groups: Readonly<Record<string, readonly string[]>>): Settings {
  const problems: string[] = [];
  const count = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      problems.push(`${name} must be a positive integer, not ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  };
  const only = new Set<string>();
  for (const name of (env.BENCH_ONLY ?? selectors.join(',')).split(',').map((s) => s.trim()).filter(Boolean)) {
    if (selectors.includes(name)) only.add(name);
    else if (groups[name]) for (const member of groups[name]) only.add(member);
    else problems.push(`BENCH_ONLY names an unknown part ${JSON.stringify(name)} (known: ${[...selectors, ...Object.keys(groups)].join(', ')})`);
  }
  const settings: Settings = {
    seconds: count('BENCH_SECONDS', 2),
    rounds: count('BENCH_ROUNDS', 8),
    infoRounds: count('BENCH_INFO_ROUNDS', 2),
    connections: count('BENCH_CONNECTIONS', 32),
    tokenConnections: count('BENCH_TOKEN_CONNECTIONS', 16),
    logins: count('BENCH_LOGINS', 48),
    loginConcurrency: count('BENCH_LOGIN_CONCURRENCY', 8),
    loginWarmups: count('BENCH_LOGIN_WARMUPS', 4),
    only,
    build: !env.BENCH_NO_BUILD,
    keep: Boolean(env.BENCH_KEEP),
    cpuProfileDir: env.BENCH_CPU_PROF || undefined,
    nodeOptions: env.BENCH_NODE_OPTIONS || undefined,
  };
  if (problems.length > 0) throw new SettingsError(problems.join('\n'));
  return settings;
}
