/**
 * The relying party's error type, on the shared HttpError (@gatehouse/http). `code` is stable
 * (tests and handlers switch on it), `status` is the HTTP status of the error page, `expose` says
 * whether the message may be shown. Every unexpected failure is answered as `server_error`.
 */
import { HttpError } from '@gatehouse/http';

export type ClientErrorCode =
  | 'login_failed'
  | 'invalid_state'
  | 'token_exchange_failed'
  | 'invalid_id_token'
  | 'authorization_server_unavailable'
  | 'database_unavailable'
  | 'csrf_failed'
  | 'invalid_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'server_error';

export class ClientError extends HttpError<ClientErrorCode> {
  /** A short title for the error page. */
  readonly title: string;

  constructor(status: number, code: ClientErrorCode, title: string, message: string, options: { cause?: unknown } = {}) {
    // 502 and 503 say what is wrong (the sign-in service, the storage) without internals: shown.
    super(status, code, message, { cause: options.cause, expose: status < 500 || status === 502 || status === 503 });
    this.title = title;
  }
}

export const invalidState = (message: string): ClientError =>
  new ClientError(400, 'invalid_state', 'Sign-in could not be completed', `${message} Start again from the application.`);

export const csrfFailed = (): ClientError =>
  new ClientError(403, 'csrf_failed', 'Request refused', 'This form has expired or did not come from this application. Reload the page and try again.');

export const authServerUnavailable = (cause: unknown): ClientError =>
  new ClientError(502, 'authorization_server_unavailable', 'Sign-in service unavailable', 'The sign-in service could not be reached. Try again in a moment.', { cause });

export const databaseUnavailable = (cause: unknown): ClientError =>
  new ClientError(503, 'database_unavailable', 'Temporarily unavailable', 'This application cannot reach its storage right now. Try again in a moment.', { cause });
