/**
 * Opening an app's database at start, when the database may not be there yet (a host booting,
 * PostgreSQL restarting, a password being fixed). Rules:
 * - an attempt that fails because the database cannot be reached, refuses the credentials
 *   (SQLSTATE class 28) or does not have the named database (3D000) is reported as one line
 *   naming host, port and reason, never a stack trace, and tried again;
 * - the waits between attempts double from 500 ms up to 10 s, and no attempt starts after
 *   `timeoutMs` from the first one: past that the last reason is thrown as a
 *   {@link DatabaseUnreachableError} (one line, for `main` to print before exiting 1);
 *   `timeoutMs` 0 makes one attempt only;
 * - any other failure (a schema that is behind, a failed migration, a bug) is thrown at once.
 */
import { isDatabaseUnavailable } from './database-unavailable.ts';

/** The database could not be opened within the start-up timeout; the message is one line. */
export class DatabaseUnreachableError extends Error {
  readonly code = 'database_unreachable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnreachableError';
  }
}

/** One failed attempt, as {@link openAtStart} reports it. */
export interface FailedAttempt {
  /** `host:port` of the database (no user, no password). */
  readonly target: string;
  /** Why, in a few words: `connection refused`, `password authentication failed for user "x"`. */
  readonly reason: string;
  /** Wait before the next attempt, ms. */
  readonly retryInMs: number;
  /** The attempt's number, from 1. */
  readonly attempt: number;
}

export interface OpenAtStartOptions {
  /** The database URL (only its host and port are reported). */
  readonly url: string;
  /** Longest time to keep trying, ms; 0: one attempt. */
  readonly timeoutMs: number;
  /** The setting that holds the timeout, named in the final message (`AUTH_DATABASE_CONNECT_TIMEOUT`). */
  readonly setting?: string;
  /** Told of every failed attempt that will be retried. */
  readonly onRetry?: (attempt: FailedAttempt) => void;
  /**
   * Given the log line of every failed attempt that will be retried (event
   * `database.unreachable_at_start`, naming `setting`): a logger's `warn`, so every app logs the same line.
   */
  readonly warn?: (fields: Record<string, unknown>, message: string) => void;
  /** Injected by tests. */
  readonly clock?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 10_000;

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed, temporarily',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** `host:port` of a PostgreSQL URL, or the SQLite file. */
export function databaseTarget(url: string): string {
  if (!/^postgres(ql)?:/.test(url)) return url.replace(/^sqlite:/, '');
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'the configured database';
  }
}

/** True for the failures start-up waits out: unreachable, credentials refused, database missing. */
function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return isDatabaseUnavailable(error) || (typeof code === 'string' && (/^28/.test(code) || code === '3D000'));
}

/** A failure in a few words, from its code or its first line; never a stack. */
export function failureReason(error: unknown): string {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && REASONS[code]) return REASONS[code];
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner[0]) return failureReason(inner[0]);
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && message.trim()) return message.split('\n')[0]!.trim();
  }
  return String(error);
}

/**
 * Calls `open` until it succeeds, a failure is not one start-up waits out, or the time is up
 * (see the rules above).
 */
export async function openAtStart<T>(open: () => Promise<T>, options: OpenAtStartOptions): Promise<T> {
  const clock = options.clock ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const target = databaseTarget(options.url);
  const deadline = clock() + options.timeoutMs;
  let wait = FIRST_WAIT_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await open();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const reason = failureReason(error);
      const left = deadline - clock();
      if (left <= 0) {
        const tried = attempt === 1 ? 'once' : `${attempt} times in ${Number((options.timeoutMs / 1000).toFixed(1))} s`;
        const setting = options.setting ? `; ${options.setting}` : '';
        throw new DatabaseUnreachableError(`cannot open the database at ${target}: ${reason} (tried ${tried}${setting})`, { cause: error });
      }
      const retryInMs = Math.min(wait, left);
      options.onRetry?.({ target, reason, retryInMs, attempt });
      options.warn?.(
        { event: 'database.unreachable_at_start', target, reason, attempt, retry_in_ms: retryInMs },
        `cannot reach the database at ${target} (${reason}); retrying in ${retryInMs} ms${options.setting ? ` (${options.setting})` : ''}`,
      );
      await sleep(retryInMs);
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    }
  }
}

/** Where an app's start-up database lines go: a logger's `warn`. */
export interface StartupWarnings {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * An app's database at start, the same way in every app: waited for as {@link openAtStart} does,
 * each retried attempt logged through `logger`, and a connection lost once serving (a PostgreSQL
 * restart) logged as one warning (`database.connection_lost`); the next query reconnects.
 */
export function openAppDatabase<T>(
  open: (events: { onConnectionError: (error: Error) => void }) => Promise<T>,
  options: Omit<OpenAtStartOptions, 'warn'> & { readonly logger: StartupWarnings },
): Promise<T> {
  const { logger, ...rest } = options;
  const onConnectionError = (error: Error) => logger.warn({ err: error, event: 'database.connection_lost' }, 'database connection lost; the next query reconnects');
  return openAtStart(() => open({ onConnectionError }), { ...rest, warn: ({ event, ...fields }, message) => logger.warn({ event, ...fields }, message) });
}
