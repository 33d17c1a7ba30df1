import type { z } from 'zod';
import { ConfigProblems } from './config-problems.ts';
import { fileVariables, readSecretFiles, type ReadTextFile } from './secret-files.ts';
import { refuseUnknown } from './unknown-variables.ts';

/** Options of {@link parseEnv}. */
export interface ParseEnvOptions {
  /**
   * Collects the problems instead of throwing them, so the caller can add its cross-field checks
   * and report everything at once with `problems.throwIfAny()`. Until then the returned value holds
   * the default (or undefined) in place of each refused variable.
   */
  readonly problems?: ConfigProblems;
  /** Variables that were renamed, old name → new name: a set old name is refused, never read. */
  readonly renamed?: Readonly<Record<string, string>>;
  /**
   * Refuse unknown variables under the app's own prefixes (unknown-variables.ts). Every schema
   * key, renamed name and secret's `_FILE` is known.
   */
  readonly strict?: {
    readonly app: string;
    readonly prefixes: readonly string[];
    readonly foreign?: readonly string[];
    /** Names the app reads beyond this schema's keys (a step that parses part of the app's schema still knows all of it). */
    readonly known?: readonly string[];
  };
  /** Variables that may instead be read from the file `<NAME>_FILE` names (secret-files.ts). */
  readonly secrets?: readonly string[];
  /** Reads a secret's file; tests inject it. */
  readonly readFile?: ReadTextFile;
}

/**
 * Refuses every renamed variable (old name → new name) that is set, naming its new name: a
 * rename is never a silent alias, so a stale environment is noticed at start. Adds the problems
 * to `problems`, or throws them when no collector is given.
 */
export function refuseRenamed(
  env: Record<string, string | undefined>,
  renamed: Readonly<Record<string, string>>,
  problems?: ConfigProblems,
): void {
  const report = problems ?? new ConfigProblems();
  for (const [old, current] of Object.entries(renamed)) {
    if (env[old] !== undefined) report.invalid(old, `renamed to ${current}; set ${current} instead (${old} is no longer read)`);
  }
  if (!problems) report.throwIfAny();
}

/**
 * Validates the environment against an app's schema (a `z.object` of variables). Every bad
 * variable is reported, each naming itself: `invalid setting API_PORT: …` for one, an
 * `invalid settings:` list for several (see {@link ConfigProblems}). In this order: renamed
 * variables, unknown ones (with `strict`), secrets' files (with `secrets`), then the values.
 */
export function parseEnv<Schema extends z.ZodObject>(
  schema: Schema,
  env: Record<string, string | undefined>,
  options: ParseEnvOptions = {},
): z.output<Schema> {
  const problems = options.problems ?? new ConfigProblems();
  const renamed = options.renamed ?? {};
  refuseRenamed(env, renamed, problems);
  const secrets = options.secrets ?? [];
  if (options.strict) {
    const known = [...Object.keys(schema.shape), ...(options.strict.known ?? []), ...Object.keys(renamed), ...fileVariables(secrets)];
    refuseUnknown(env, { ...options.strict, known }, problems);
  }
  const values = secrets.length ? readSecretFiles(env, secrets, problems, options.readFile) : env;
  let parsed = schema.safeParse(values);
  if (!parsed.success) {
    const refused = new Set<string>();
    for (const issue of parsed.error.issues) {
      const name = issue.path.map(String).join('.');
      problems.invalid(name, issue.message);
      if (issue.path[0] !== undefined) refused.add(String(issue.path[0]));
    }
    // The rest of the configuration is still read, refused variables at their defaults, so the
    // caller's cross-field checks can add their own problems to the same report.
    parsed = schema.safeParse(Object.fromEntries(Object.entries(values).filter(([name]) => !refused.has(name))));
  }
  if (!options.problems || !parsed.success) problems.throwIfAny();
  return parsed.data as z.output<Schema>;
}
