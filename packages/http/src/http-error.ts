/**
 * The base of every app's error type. Rules: `status` is the HTTP status; `code` is stable, from
 * the app's closed union (clients and tests switch on it, never on the message); `expose` says
 * whether the message may reach the client (by default only under 500: an unexposed error is
 * answered as a generic `server_error`); `headers` go out with the answer (Retry-After, Allow);
 * `cause` keeps the underlying error for the log.
 */

/** Options for {@link HttpError}. */
export interface HttpErrorOptions {
  /** Response headers the error carries (e.g. `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying error, for the log only. */
  readonly cause?: unknown;
  /** Whether the message may be shown (default: `status < 500`). */
  readonly expose?: boolean;
}

/** An error with an HTTP status and a stable code from the closed union `Code`. */
export class HttpError<Code extends string = string> extends Error {
  readonly status: number;
  readonly code: Code;
  readonly expose: boolean;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: Code, message: string, options: HttpErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.expose = options.expose ?? status < 500;
    this.headers = options.headers ?? {};
  }
}
