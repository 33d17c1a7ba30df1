/**
 * NODE_ENV: the one setting that changes what every app accepts, read by one rule.
 * Rules:
 * - unset means development; `development`, `test` and `production` are the only values, in
 *   lower case as written here;
 * - anything else is refused, never read as "not production": a misspelt production would
 *   otherwise start with the development seed and secrets and skip every production check. The
 *   refusal names the value and, when one is close, the mode meant:
 *   `NODE_ENV=prod: not one of development, test, production; did you mean production?`;
 * - a mode is close when the value differs from it in case only, is its start (`prod`, `dev`:
 *   3 letters or more), starts with it (`production-eu`), or is a misspelling of it within the
 *   distance unknown-variables.ts allows (`producton`);
 * - after a refusal the rest of the environment is checked under the mode meant, or under
 *   production when none is close, so the one report lists what the corrected environment would
 *   still lack and never hides a production problem.
 */
import type { ConfigProblems } from './config-problems.ts';
import { closestName } from './unknown-variables.ts';

const NODE_ENVS = ['development', 'test', 'production'] as const;

/** What NODE_ENV may say. */
export type NodeEnv = (typeof NODE_ENVS)[number];

const isNodeEnv = (value: string): value is NodeEnv => (NODE_ENVS as readonly string[]).includes(value);

/** The mode `value` most likely meant, when one is close enough to say so. */
function meant(value: string): NodeEnv | undefined {
  const lower = value.toLowerCase();
  if (isNodeEnv(lower)) return lower;
  const started = NODE_ENVS.find((mode) => (lower.length >= 3 && mode.startsWith(lower)) || lower.startsWith(mode));
  return started ?? (closestName(lower, NODE_ENVS) as NodeEnv | undefined);
}

/**
 * The mode NODE_ENV sets (`development` when unset). A value that is not one of the three adds
 * its problem to `problems`; the mode returned is then the one it meant, or `production`.
 */
export function readNodeEnv(env: Record<string, string | undefined>, problems: ConfigProblems): NodeEnv {
  const value = env.NODE_ENV;
  if (value === undefined) return 'development';
  if (isNodeEnv(value)) return value;
  const modes = NODE_ENVS.join(', ');
  if (value === '') {
    problems.sentence('NODE_ENV', `NODE_ENV is empty: set it to one of ${modes}, or leave it unset for development`);
    return 'production';
  }
  const suggestion = meant(value);
  problems.sentence('NODE_ENV', `NODE_ENV=${value}: not one of ${modes}${suggestion ? `; did you mean ${suggestion}?` : ''}`);
  return suggestion ?? 'production';
}
