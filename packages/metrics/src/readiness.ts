/**
 * Readiness probes. Rules:
 * - each check is named; it passes when it resolves to anything but `false`, and fails when it
 *   resolves `false`, throws, or takes longer than the timeout;
 * - checks run in parallel, so one slow dependency costs one timeout, not the sum;
 * - the report names every check with `ok` or `failing` and nothing more (no error text:
 *   the endpoint needs no credentials).
 */

/** A named dependency check, e.g. `database: () => ping()`. */
export type ReadinessCheck = () => Promise<unknown>;

/** The checks of an app, by the name the report uses. */
export type ReadinessChecks = Readonly<Record<string, ReadinessCheck>>;

/** What `/readyz` answers: 200 with `ready`, 503 with `not_ready`. */
export interface ReadinessReport {
  readonly status: 'ready' | 'not_ready';
  readonly checks: Readonly<Record<string, 'ok' | 'failing'>>;
}

/** Longest a check may take by default, milliseconds. */
export const DEFAULT_CHECK_TIMEOUT_MS = 2_000;

async function passes(check: ReadinessCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([check().then((result) => result !== false), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check and reports which pass. */
export async function checkReadiness(checks: ReadinessChecks, options: { timeoutMs?: number } = {}): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => passes(checks[name]!, options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)));
  const report: Record<string, 'ok' | 'failing'> = {};
  names.forEach((name, i) => (report[name] = results[i] ? 'ok' : 'failing'));
  return { status: results.every(Boolean) ? 'ready' : 'not_ready', checks: report };
}
