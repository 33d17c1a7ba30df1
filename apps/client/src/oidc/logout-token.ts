/**
 * Validation of a back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.6), with
 * jose against the authorization server's published keys (its discovered jwks_uri). Rules, in the
 * order they run:
 * - a JWS signed by a key of the server's JWKS, with an asymmetric algorithm (never `none`);
 * - `iss` is the issuer, `aud` names this client id;
 * - `iat` is present and at most `maxAgeSeconds` old (and not in the future, beyond the clock
 *   tolerance); an `exp` that passed is refused;
 * - `events` holds the member `http://schemas.openid.net/event/backchannel-logout`, a JSON object;
 * - `sub` or `sid` (a string) is present; `nonce` is absent; `jti` is present;
 * - the `jti` was not taken before by this client (replay store, logout-token-store.ts).
 * Each refusal has a stable code; the route answers 400 with it (§2.8).
 */
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import type { LogoutTokenStore } from '../sessions/logout-token-store.ts';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const ASYMMETRIC_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

export type LogoutTokenRefusal = 'invalid_token' | 'invalid_claims' | 'replayed' | 'server_unavailable';

export class LogoutTokenRefused extends Error {
  readonly code: LogoutTokenRefusal;
  constructor(code: LogoutTokenRefusal, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.code = code;
  }
}

/** What a valid token names: the user, the SSO session, or both. */
export interface LogoutTarget {
  sub?: string;
  sid?: string;
}

export interface LogoutTokenDeps {
  clientId: string;
  serverKeys: () => Promise<{ issuer: string; jwksUri: string }>;
  replays: Pick<LogoutTokenStore, 'remember'>;
  fetch: typeof globalThis.fetch;
  clock: () => number;
  /** The oldest `iat` accepted, seconds. */
  maxAgeSeconds?: number;
  clockToleranceSeconds?: number;
}

export type LogoutTokenValidator = (token: string) => Promise<LogoutTarget>;

export function createLogoutTokenValidator(deps: LogoutTokenDeps): LogoutTokenValidator {
  const maxAge = deps.maxAgeSeconds ?? 120;
  const tolerance = deps.clockToleranceSeconds ?? 5;
  let keys: { jwksUri: string; set: ReturnType<typeof createRemoteJWKSet> } | undefined;

  return async (token) => {
    let server: { issuer: string; jwksUri: string };
    try {
      server = await deps.serverKeys();
    } catch (error) {
      throw new LogoutTokenRefused('server_unavailable', 'the authorization server could not be discovered', { cause: error });
    }
    if (keys?.jwksUri !== server.jwksUri) {
      keys = { jwksUri: server.jwksUri, set: createRemoteJWKSet(new URL(server.jwksUri), { [customFetch]: (url, options) => deps.fetch(url, options as RequestInit) }) };
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys.set, {
        issuer: server.issuer,
        audience: deps.clientId,
        algorithms: ASYMMETRIC_ALGS,
        requiredClaims: ['iat', 'jti', 'events'],
        maxTokenAge: maxAge,
        clockTolerance: tolerance,
        currentDate: new Date(deps.clock()),
      }));
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || (error instanceof TypeError && !(error instanceof errors.JOSEError))) {
        throw new LogoutTokenRefused('server_unavailable', 'the authorization server\'s keys could not be fetched', { cause: error });
      }
      const claim = error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired;
      throw new LogoutTokenRefused(claim ? 'invalid_claims' : 'invalid_token', claim ? `logout token ${(error as Error).message}` : 'the logout token is not a JWT signed by the authorization server', { cause: error });
    }
    const events = payload.events as Record<string, unknown> | undefined;
    const event = events?.[BACKCHANNEL_LOGOUT_EVENT];
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new LogoutTokenRefused('invalid_claims', 'the logout token has no back-channel logout event');
    if ('nonce' in payload) throw new LogoutTokenRefused('invalid_claims', 'a logout token must not carry a nonce');
    const sub = typeof payload.sub === 'string' ? payload.sub : undefined;
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    if (sub === undefined && sid === undefined) throw new LogoutTokenRefused('invalid_claims', 'the logout token names neither sub nor sid');
    const expiresAt = ((payload.exp ?? (payload.iat as number) + maxAge) + tolerance) * 1000;
    if (!(await deps.replays.remember(String(payload.jti), expiresAt))) throw new LogoutTokenRefused('replayed', 'this logout token was already used');
    return { ...(sub !== undefined ? { sub } : {}), ...(sid !== undefined ? { sid } : {}) };
  };
}
