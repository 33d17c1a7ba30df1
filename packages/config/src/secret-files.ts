/**
 * Secrets read from files (`<NAME>_FILE`), as container platforms mount them (Docker and
 * Kubernetes secrets).
 * Rules:
 * - for each secret NAME, `NAME_FILE` names a file whose content is the value of NAME;
 * - trailing line breaks are removed (an editor's or `echo`'s final newline is not part of the
 *   secret); an empty file is refused;
 * - setting both NAME and NAME_FILE is refused: which one wins would be a guess;
 * - a file that cannot be read is refused with the variable, the path and the reason, never the
 *   content; such a problem concerns NAME (`problems.has(NAME)`), so no rule adds a second one
 *   built on the missing value.
 */
import { readFileSync } from 'node:fs';
import type { ConfigProblems } from './config-problems.ts';

/** Reads a file as UTF-8 (injected by tests). */
export type ReadTextFile = (path: string) => string;

const readText: ReadTextFile = (path) => readFileSync(path, 'utf8');

/** The `_FILE` variable of each secret. */
export const fileVariables = (secrets: Iterable<string>): string[] => [...secrets].map((name) => `${name}_FILE`);

/**
 * Returns `env` with each secret whose `NAME_FILE` is set read from that file; problems are added
 * to `problems` (the secret is then left unset, so it reports nothing further of its own).
 */
export function readSecretFiles(
  env: Record<string, string | undefined>,
  secrets: Iterable<string>,
  problems: ConfigProblems,
  readFile: ReadTextFile = readText,
): Record<string, string | undefined> {
  const resolved = { ...env };
  for (const name of secrets) {
    const fileVariable = `${name}_FILE`;
    const path = env[fileVariable];
    if (path === undefined) continue;
    delete resolved[fileVariable];
    if (env[name] !== undefined) {
      problems.invalid(fileVariable, `set either ${name} or ${fileVariable}, not both`, name);
      delete resolved[name];
      continue;
    }
    let content: string;
    try {
      content = readFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (code ?? String(error));
      problems.invalid(fileVariable, `cannot read ${path}: ${reason}`, name);
      continue;
    }
    const value = content.replace(/[\r\n]+$/, '');
    if (!value) {
      problems.invalid(fileVariable, `${path} is empty`, name);
      continue;
    }
    resolved[name] = value;
  }
  return resolved;
}
