/**
 * The one redaction list of every Gatehouse logger. Rules:
 * - a field that can carry a credential is removed (not masked) wherever a log line puts it: at the
 *   top level and one level down (`*.x`: the fields of an object passed to the logger, of `err`,
 *   of `req`);
 * - covered: passwords, client secrets, access, refresh and ID tokens, authorization codes, OAuth
 *   `state` and `nonce`, TOTP and other secrets, enrollment and recovery codes, the Authorization
 *   and Cookie request headers and the Set-Cookie response header;
 * - a field name on this list is never used for anything else in a log line (an error's stable code
 *   goes in `error_code`, not `code`).
 * Redaction is the safety net; callers still pass identifiers, never credentials.
 */

/** Field names removed at the top level of a line and one level down. */
export const SECRET_FIELD_NAMES = [
  'password',
  'passwordHash',
  'secret',
  'client_secret',
  'clientSecret',
  'totpSecret',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
  'code',
  'code_verifier',
  'codeVerifier',
  'enrollment_code',
  'recovery_codes',
  'state',
  'nonce',
  'authorization',
  'cookie',
  'cookies',
] as const;

/** The pino redaction paths: every secret field at the top level and one level down, plus request and response headers. */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  ...SECRET_FIELD_NAMES,
  ...SECRET_FIELD_NAMES.map((field) => `*.${field}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["set-cookie"]',
]);
