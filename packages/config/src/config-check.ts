/**
 * `config check`: validates an app's environment without starting anything (no database, no
 * listener), the way Authelia's `validate-config` does.
 * Rules:
 * - a refused configuration prints exactly what start-up would print (configErrorText: the app's
 *   name, then the problems, one line each) on stderr and exits 1;
 * - a valid one prints one short line on stdout, `<app>: configuration ok (…)`, and exits 0;
 *   the summary holds only what the caller chose to show (mode, public URLs, a redacted database
 *   URL), never a secret;
 * - any other failure (a bug, not a setting) is not swallowed: it is thrown.
 */
import { ConfigError } from './config-error.ts';

/** What start-up and `config check` print for a refused configuration: `<app>: <message>`, one problem a line. */
export function configErrorText(app: string, error: ConfigError): string {
  return `${app}: ${error.message}\n`;
}

/** Where `config check` writes. */
export interface ConfigCheckIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Runs `load` (the app's loadConfig and anything else start-up validates) and reports.
 * `load` returns the summary's parts (e.g. `['production', 'issuer https://id.example.com']`).
 * Returns the exit code.
 */
export function runConfigCheck(app: string, load: () => readonly string[], io: ConfigCheckIo): number {
  let summary: readonly string[];
  try {
    summary = load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(configErrorText(app, error));
    return 1;
  }
  io.stdout(`${app}: configuration ok${summary.length ? ` (${summary.join('; ')})` : ''}\n`);
  return 0;
}
