/**
 * One structured line per request, the same field set in every app:
 * `{ event: 'http_request', request_id, method, path, status, duration_ms, ...app fields }`,
 * message `request`. Rules:
 * - `path` never includes the query string (it can carry codes, states and refused tokens); no
 *   header, cookie or body is logged;
 * - 5xx at error level, 4xx at debug (expected refusals), everything else at info;
 * - `status` is the status sent: for an error that escapes, its 4xx/5xx `status`, else 500;
 * - an app may add fields (the API's version, representation, client and subject); they never
 *   replace a shared field;
 * - `method` and `path` are those the request arrived with, taken before it runs: a handler may
 *   rewrite them to run another route internally (the auth server's `POST /mfa/verify` resumes the
 *   authorization as `GET /oauth2/v1/authorize/<uid>`), and the line names the route that was asked;
 * - a path that carries a secret (a one-time link's token) is logged as the pattern a handler
 *   names in `ctx.state.accessLogPath` ({@link AccessLogState}), never as it arrived.
 * Mount it after the request id and outside the error handler, so it sees the final status.
 */
import type { Next, ParameterizedContext } from 'koa';
import type { RequestIdState } from './request-id.ts';

type LogMethod = (fields: Record<string, unknown>, message: string) => void;

/** What a handler may set for the access log. */
export interface AccessLogState {
  /** The path to log instead of the one that arrived, e.g. `/account/password-reset/:token`. */
  accessLogPath?: string;
}

/** The part of a logger the access log writes to (a pino logger fits). */
export interface AccessLogger {
  readonly info: LogMethod;
  readonly debug: LogMethod;
  readonly error: LogMethod;
}

/** Options for {@link accessLog}. */
export interface AccessLogOptions<State extends RequestIdState> {
  /** Milliseconds, for the duration (default `performance.now`); tests inject a clock. */
  readonly clock?: () => number;
  /** Fields the app adds to the line, read once the response is done. */
  readonly fields?: (ctx: ParameterizedContext<State>) => Readonly<Record<string, unknown>>;
}

function statusOfError(error: unknown): number {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

type DirectLine = (level: 'debug' | 'info' | 'error', fields: Readonly<Record<string, unknown>>, message: string) => void;
/** @gatehouse/logging's `DIRECT_LINE`: a logger made by its createLogger has its direct writer there (direct-line.ts). */
const DIRECT_LINE = Symbol.for('gatehouse.logging.directLine');

/** The shared fields of a request line. */
export interface RequestLine {
  readonly requestId: string;
  readonly method: string;
  /** Without the query string. */
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
}

/**
 * Writes one request line: the shared fields, then the app's `extra` fields that do not replace
 * one of them; 5xx at error, 4xx at debug, the rest at info. The middleware below and an app's
 * own request path outside Koa (the API's item reads) write through this one function.
 */
export function logRequest(logger: AccessLogger, request: RequestLine, extra?: Readonly<Record<string, unknown>>): void {
  const line: Record<string, unknown> = {
    event: 'http_request',
    request_id: request.requestId,
    method: request.method,
    path: request.path,
    status: request.status,
    duration_ms: Math.round(request.durationMs),
  };
  if (extra) for (const name in extra) if (!(name in line)) line[name] = extra[name];
  const level = request.status >= 500 ? 'error' : request.status >= 400 ? 'debug' : 'info';
  // A logger made by createLogger takes the line straight to its destination, the same JSON.
  const direct = Object.hasOwn(logger, DIRECT_LINE) ? (logger as unknown as Record<symbol, DirectLine | undefined>)[DIRECT_LINE] : undefined;
  if (direct) direct(level, line, 'request');
  else logger[level](line, 'request');
}

/** Koa middleware writing the request line once the response is done (or failed). */
export function accessLog<State extends RequestIdState & AccessLogState = RequestIdState & AccessLogState>(logger: AccessLogger, options: AccessLogOptions<State> = {}) {
  const clock = options.clock ?? (() => performance.now());
  return async function accessLogMiddleware(ctx: ParameterizedContext<State>, next: Next): Promise<void> {
    const started = clock();
    const { method, path } = ctx;
    let escaped: number | undefined;
    try {
      await next();
    } catch (error) {
      escaped = statusOfError(error);
      throw error;
    } finally {
      const status = escaped ?? (ctx.respond === false ? ctx.res.statusCode : ctx.status);
      logRequest(logger, { requestId: ctx.state.requestId, method, path: ctx.state.accessLogPath ?? path, status, durationMs: clock() - started }, options.fields?.(ctx));
    }
  };
}
