/**
 * The authorization server's error type, on the shared HttpError (@gatehouse/http). `code` is
 * stable (clients switch on it), `status` is the HTTP status, `expose` says whether the
 * description may be shown (under 500). Every unexpected failure is answered as `server_error`.
 */
import { HttpError } from '@gatehouse/http';

export type AuthErrorCode =
  | 'invalid_request'
  | 'reauth_required'
  | 'invalid_email'
  | 'invalid_credentials'
  | 'account_disabled'
  | 'temporarily_unavailable'
  | 'invalid_code'
  | 'code_replayed'
  | 'too_many_attempts'
  | 'interaction_expired'
  | 'password_required'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'server_error'
  // Push approval and the web authenticator.
  | 'push_unavailable'
  | 'too_many_pushes'
  | 'push_rejected'
  | 'push_number_mismatch'
  | 'push_not_refused'
  | 'push_timeout'
  | 'push_expired'
  | 'push_already_decided'
  | 'number_mismatch'
  | 'invalid_signature'
  | 'request_replayed'
  | 'device_not_allowed'
  | 'invalid_enrollment_code'
  | 'login_required'
  | 'forbidden'
  // Passkeys (WebAuthn).
  | 'passkey_challenge_invalid'
  | 'passkey_unknown'
  | 'passkey_invalid'
  | 'passkey_user_not_verified'
  | 'passkey_cloned'
  | 'passkey_already_registered'
  // The account page and password-reset links (account/).
  | 'invalid_current_password'
  | 'password_mismatch'
  | 'password_empty'
  | 'password_too_short'
  | 'password_too_long'
  | 'password_common'
  | 'invalid_enrollment'
  | 'reset_link_invalid'
  // "Forgot password?" (account/forgot-password.ts).
  | 'identifier_required'
  | 'code_required'
  | 'factor_not_enrolled'
  | 'passkey_required'
  | 'push_not_approved'
  | 'password_recovery_unavailable'
  // "Sign out everywhere" after a sign-out (logout/sign-out-everywhere.ts).
  | 'sign_out_expired'
  | FederatedErrorCode;

/** Why a federated sign-in (interactions/federated/) or a change to its links was refused. */
export type FederatedErrorCode =
  | 'unknown_provider'
  | 'upstream_unavailable'
  | 'upstream_refused'
  | 'upstream_error'
  | 'state_mismatch'
  | 'invalid_upstream_response'
  | 'unverified_email'
  | 'attempt_expired'
  | 'not_invited'
  | 'already_linked'
  | 'last_sign_in_method';

/**
 * One refusal of a code that the code's own page text says too generically, named
 * `<code>.<detail>`: pages in other languages than English show the catalogue's
 * `error.<code>.<detail>` (i18n/en.ts) instead of `error.<code>`; English pages show the error's
 * own message.
 */
export const ERROR_DETAILS = [
  'invalid_request.selectAccountChoice',
  'invalid_request.consentDecision',
  'invalid_request.preferredFactor',
  'invalid_code.recoveryCode',
  'invalid_code.newAuthenticatorApp',
  'code_replayed.recoveryCode',
  'factor_not_enrolled.totp',
  'factor_not_enrolled.preferredFactor',
  'invalid_email.unchanged',
  'not_found.device',
  'not_found.passkey',
  'not_found.connectedApp',
  'not_found.providerLink',
  'not_found.emailChangeWithoutMail',
  'not_found.pushOfSignIn',
  'login_required.accountSignInIncomplete',
  'push_unavailable.resetWithoutPush',
] as const;

export type ErrorDetail = (typeof ERROR_DETAILS)[number];

export const isErrorDetail = (value: unknown): value is ErrorDetail => (ERROR_DETAILS as readonly unknown[]).includes(value);

/** A link on an error page that leads on from it ("Start again", "Back to <app>"). */
export interface WayOn {
  /** The English label. */
  label: string;
  href: string;
  /** What the label says, for the page's language: start the sign-in again, back to `app`, or on to `app` (already signed in). */
  says?: { way: 'startAgain' } | { way: 'backTo'; app: string } | { way: 'continueTo'; app: string } | { way: 'account' };
}

export class AuthError extends HttpError<AuthErrorCode> {
  /** Where the error page leads (HTML only; the JSON answer is unchanged). */
  readonly way: WayOn | undefined;
  /** Which refusal of its code this is, for the pages of other languages (ErrorDetail). */
  readonly detail: ErrorDetail | undefined;

  constructor(status: number, code: AuthErrorCode, message: string, options: { headers?: Record<string, string>; cause?: unknown; way?: WayOn; detail?: ErrorDetail } = {}) {
    super(status, code, message, options);
    this.way = options.way;
    this.detail = options.detail;
  }
}

export const invalidRequest = (message: string, detail?: ErrorDetail): AuthError => new AuthError(400, 'invalid_request', message, detail ? { detail } : {});
export const interactionExpired = (way?: WayOn): AuthError =>
  new AuthError(400, 'interaction_expired', 'This sign-in page has expired, or it was opened in a browser that did not start it. Nothing was signed in: start the sign-in again.', way ? { way } : {});
/** 429 with Retry-After; the message counts seconds under a minute (a progressive delay), minutes otherwise. */
export const tooManyAttempts = (retryAfterSeconds: number): AuthError => {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const wait = retryAfterSeconds < 60 ? `${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}` : `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
  return new AuthError(429, 'too_many_attempts', `Too many attempts. Try again in ${wait}.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
};
