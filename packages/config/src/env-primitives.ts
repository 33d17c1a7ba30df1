/**
 * The building blocks of every app's environment schema, so a word means the same everywhere.
 * Rules:
 * - `bool`: `true`/`1`/`yes` or `false`/`0`/`no`, nothing else;
 * - `seconds`: a whole, non-negative number of seconds; a setting that needs more says so at its
 *   call site (`seconds.positive()`, `seconds.min(60)`);
 * - `list`: comma-separated, each item trimmed, empty items dropped;
 * - `port`: 0–65535, where 0 binds a free port;
 * - `logLevel`: one of pino's levels, or `silent`;
 * - `url`: an absolute URL used as a base (an issuer, a public URL), trailing slashes removed
 *   ({@link trimTrailingSlashes}) so `${url}/path` never doubles a slash.
 */
import { z } from 'zod';

/** Removes trailing slashes: `https://a.example/x//` → `https://a.example/x`. The one trimming rule. */
export function trimTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

const TRUE = ['true', '1', 'yes'];

/** A yes/no setting. */
export const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => TRUE.includes(v));

/** A duration in whole seconds, 0 or more. */
export const seconds = z.coerce.number().int().nonnegative();

/** Comma-separated values. */
export const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

/** A TCP port; 0 lets the system pick a free one. */
export const port = z.coerce.number().int().min(0).max(65535);

/** The levels a pino logger accepts. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A log level (`LOG_LEVEL`). */
export const logLevel = z.enum(LOG_LEVELS);

/** An absolute base URL, without trailing slashes. */
export const url = z.url().transform(trimTrailingSlashes);

/** A string `check` accepts; `check` returns why it does not, or undefined (e.g. the database URL validator of `@gatehouse/db`). */
export function checkedString(check: (value: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const problem = check(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}
