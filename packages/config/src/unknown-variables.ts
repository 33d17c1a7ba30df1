/**
 * Refuses variables an app does not read, so a misspelt setting is noticed at start instead of
 * silently leaving its default in force (Authelia's `validate-config` is the model).
 * Rules:
 * - only variables that start with one of the app's own prefixes (`AUTH_`, `API_`, `CLIENT_`)
 *   are checked: everything else in the environment belongs to other programs;
 * - a variable is known when the app reads it, or when `foreign` says a sibling program reads it
 *   under this prefix (the client's `API_URL` in an environment shared with the API);
 * - each unknown variable is one problem, in the environment's order, naming itself and, when a
 *   known name is close enough (edit distance at most a third of its length, and at most 3), the
 *   closest one: `AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?`;
 * - `NAME_FILE` of a known NAME that is not a secret says so (only secrets are read from files).
 */
import type { ConfigProblems } from './config-problems.ts';

/** What {@link refuseUnknown} needs to know about one app. */
export interface KnownVariables {
  /** The app's name in messages (`auth`). */
  readonly app: string;
  /** The app's own prefixes: only variables starting with one of them are checked. */
  readonly prefixes: readonly string[];
  /** Every variable the app reads. */
  readonly known: Iterable<string>;
  /** Variables of other programs that share a prefix with this app; neither read nor refused. */
  readonly foreign?: Iterable<string>;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known name closest to `name`, when it is close enough to be what was meant. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.min(3, Math.ceil(best.name.length / 3)) ? best.name : undefined;
}

/** Adds one problem per variable that carries one of the app's prefixes and that nobody reads. */
export function refuseUnknown(env: Record<string, string | undefined>, variables: KnownVariables, problems: ConfigProblems): void {
  const known = new Set(variables.known);
  const foreign = new Set(variables.foreign ?? []);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || known.has(name) || foreign.has(name)) continue;
    if (!variables.prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const stem = name.endsWith('_FILE') ? name.slice(0, -'_FILE'.length) : undefined;
    if (stem && known.has(stem)) {
      problems.invalid(name, `not a setting of ${variables.app}; ${stem} is not a secret and cannot be read from a file, set ${stem} itself`);
      continue;
    }
    const suggestion = closestName(name, known);
    problems.invalid(name, `not a setting of ${variables.app}${suggestion ? `; did you mean ${suggestion}?` : ''}`);
  }
}
