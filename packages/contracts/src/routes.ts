/** Paths of the authorization server, relative to its issuer. */
export const AUTH_ROUTES = {
  authorize: '/oauth2/v1/authorize',
  token: '/oauth2/v1/token',
  jwks: '/oauth2/v1/keys',
  userinfo: '/oauth2/v1/userinfo',
  introspect: '/oauth2/v1/introspect',
  revoke: '/oauth2/v1/revoke',
  logout: '/oauth2/v1/logout',
  /** Device authorization (RFC 8628 §3.1): a device asks for a device code and a user code. */
  deviceAuthorize: '/oauth2/v1/device/authorize',
  /** The device flow's verification page (RFC 8628 §3.3): the user enters the user code. */
  activate: '/activate',
  /** Revocation feed: JSON catch-up (`?since=`) and, with `Accept: text/event-stream`, a live stream. */
  revocations: '/oauth2/v1/revocations',
  discovery: '/.well-known/openid-configuration',
  login: '/login',
  mfaVerify: '/mfa/verify',
  /** Liveness: 200 while the process serves requests. */
  health: '/healthz',
  /** Readiness: 200 when every dependency check passes, else 503 naming the failing ones. */
  ready: '/readyz',
} as const;

/** Paths of a relying-party app. */
export const CLIENT_ROUTES = {
  landing: '/',
  callback: '/callback',
  logout: '/logout',
  signedOut: '/signed-out',
  /** OpenID Connect Back-Channel Logout 1.0: the authorization server posts logout tokens here. */
  backchannelLogout: '/backchannel-logout',
  health: '/healthz',
  ready: '/readyz',
} as const;

/** Paths of the resource server. */
export const API_ROUTES = {
  prefix: '/api',
  openapi: '/api/openapi.json',
  /** Documentation of each problem `code`: `/problems/<code>` is the `type` of the API's problem documents. */
  problems: '/problems',
  health: '/healthz',
  ready: '/readyz',
} as const;
