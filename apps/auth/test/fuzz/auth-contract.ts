/**
 * The authorization server's side of the service contract (docs/spec.md §7), as fuzz checks:
 * - a 4xx of the OAuth API endpoints (token, introspect, revoke, userinfo, keys, revocation feed)
 *   is RFC 6749 JSON `{error, error_description?}`;
 * - any other 4xx is that JSON or the server's HTML error page (`Error code: <code>…</code>`);
 *   the authorize and logout endpoints answer browsers with that page;
 * - the error code is one the contract names: the server's own codes (§7, the passkey codes of
 *   §10.9, the device flow's of §10.18) or the standard OAuth codes (RFC 6749, 6750, 7009, 7662,
 *   8628, OpenID Connect Core and RP-Initiated Logout);
 * - every answer of the app carries X-Request-Id (only Node's own parser rejections, which never
 *   reach the app, have none);
 * - an authorization error may instead be delivered to the client by the form_post response mode
 *   (the form_post page, views/form-post-page.ts: 400, a hidden `error` input);
 * - a redirect never leaves for a URI that is not registered: the Location, or the action of such
 *   an auto-submitting form, is on the server itself or is one of the clients' registered redirect
 *   or post-logout URIs (no open redirect), whatever host the request named (Host header or an
 *   absolute-form target: src/http/public-origin.ts pins every URL to the issuer).
 */
import { anyShape, htmlErrorPage, oauthErrorJson, parserRejection, type FuzzRequest, type FuzzResponse, type ShapeCheck } from '@gatehouse/fuzz';

const OAUTH_API = new Set(['/oauth2/v1/token', '/oauth2/v1/introspect', '/oauth2/v1/revoke', '/oauth2/v1/userinfo', '/oauth2/v1/keys', '/oauth2/v1/revocations']);

const SERVER_CODES = [
  'invalid_request',
  'interaction_expired',
  'password_required',
  'number_mismatch',
  'push_unavailable',
  'invalid_enrollment_code',
  'invalid_credentials',
  'invalid_code',
  'code_replayed',
  'push_rejected',
  'push_number_mismatch',
  'push_timeout',
  'invalid_signature',
  'request_replayed',
  'login_required',
  'account_disabled',
  'device_not_allowed',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'push_already_decided',
  'push_not_refused',
  'push_expired',
  'payload_too_large',
  'unsupported_media_type',
  'too_many_attempts',
  'too_many_pushes',
  // Passkeys (§10.9).
  'passkey_challenge_invalid',
  'passkey_unknown',
  'passkey_invalid',
  'passkey_user_not_verified',
  'passkey_cloned',
  'passkey_already_registered',
  // The account page and password-reset links (§10.10).
  'invalid_current_password',
  'password_mismatch',
  'password_empty',
  'password_too_short',
  'password_too_long',
  'password_common',
  'invalid_enrollment',
  'reset_link_invalid',
  // The device flow's code form (§10.18).
  'user_code_missing',
  'user_code_not_found',
  'user_code_expired',
  'user_code_used',
];

const OAUTH_CODES = [
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'unsupported_response_mode',
  'invalid_token',
  'insufficient_scope',
  'unsupported_token_type',
  'invalid_target',
  'invalid_redirect_uri',
  'invalid_request_object',
  'invalid_request_uri',
  'request_not_supported',
  'request_uri_not_supported',
  'consent_required',
  'interaction_required',
  'account_selection_required',
  'registration_not_supported',
  // RFC 8628 §3.5.
  'authorization_pending',
  'slow_down',
  'expired_token',
];

const KNOWN_CODES = new Set([...SERVER_CODES, ...OAUTH_CODES]);

const mediaType = (response: FuzzResponse): string => (response.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

/** The path the server routes on, as Koa reads it (absolute-form targets included, dot segments kept). */
export function pathOf(request: FuzzRequest): string {
  return request.path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split('?')[0]!;
}

/** The error code of an answer (JSON `error`, the HTML page's code, or a form_post `error`), if any. */
export function errorCode(response: FuzzResponse): string | undefined {
  if (mediaType(response) === 'application/json') {
    try {
      const body = JSON.parse(response.text) as unknown;
      return body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : undefined;
    } catch {
      return undefined;
    }
  }
  if (mediaType(response) === 'text/html') return (/Error code: <code>([^<]*)<\/code>/.exec(response.text) ?? FORM_POST_ERROR.exec(response.text))?.[1];
  return undefined;
}

const errorPage = htmlErrorPage(/<p class="muted">Error code: <code>[a-z_]+<\/code>/);

const FORM_POST = /<form method="post" action="([^"]*)" id="form-post">/;
const FORM_POST_ERROR = /<input type="hidden" name="error" value="([^"]*)">/;

/** An error delivered to the client by the form_post response mode. */
const formPostError: ShapeCheck = (response, request) => {
  if (mediaType(response) !== 'text/html') return 'not a form_post page';
  if (request.method.toUpperCase() === 'HEAD') return undefined;
  if (!FORM_POST.test(response.text)) return 'not a form_post page';
  return FORM_POST_ERROR.test(response.text) ? undefined : 'form_post page without an error';
};

const apiShape = anyShape(oauthErrorJson, parserRejection);
const pageShape = anyShape(oauthErrorJson, errorPage, formPostError, parserRejection);

/** The harness `errorShape` of the authorization server. */
export const authErrorShape: ShapeCheck = (response, request) => (OAUTH_API.has(pathOf(request)) ? apiShape : pageShape)(response, request);

/** URIs a redirect may point to outside the server itself. */
export interface RedirectTargets {
  readonly issuer: string;
  readonly registered: readonly string[];
}

/** The checks above that are not shapes: known codes and no open redirect. */
export function contractCheck(targets: RedirectTargets) {
  const issuerOrigin = new URL(targets.issuer).origin;
  const registered = targets.registered.map((uri) => new URL(uri));
  /** What is wrong with sending the browser to `uri` (empty when it is allowed). */
  const leaves = (uri: string, how: string): string[] => {
    let target: URL;
    try {
      target = new URL(uri, targets.issuer);
    } catch {
      return [`${how} to ${JSON.stringify(uri.slice(0, 200))}, which is not a URL`];
    }
    if (target.origin === issuerOrigin) return [];
    const problems: string[] = [];
    if (!registered.some((r) => r.origin === target.origin && r.pathname === target.pathname)) problems.push(`${how} to an unregistered URI ${target.origin}${target.pathname}`);
    const error = target.searchParams.get('error');
    if (error !== null && !KNOWN_CODES.has(error)) problems.push(`${how} carries error ${JSON.stringify(error)}, not a contract code`);
    return problems;
  };
  return (request: FuzzRequest, response: FuzzResponse): string[] => {
    const problems: string[] = [];
    const parserRejected = [400, 413, 414, 431].includes(response.status) && response.body.length === 0 && response.header('content-type') === undefined;
    if (response.header('x-request-id') === undefined && !parserRejected) problems.push('the answer carries no X-Request-Id');
    if (response.status >= 400 && request.method.toUpperCase() !== 'HEAD') {
      const code = errorCode(response);
      if (code !== undefined && !KNOWN_CODES.has(code)) problems.push(`error code ${JSON.stringify(code)} is not one the contract names`);
    }
    const location = response.header('location');
    if (location !== undefined && response.status >= 300 && response.status < 400) problems.push(...leaves(location, 'redirect'));
    const formPost = FORM_POST.exec(response.text);
    if (formPost) {
      const action = formPost[1]!.replace(/&amp;/g, '&');
      problems.push(...leaves(action, 'form_post'));
    }
    return problems;
  };
}
