/**
 * Gatehouse as the relying party of an upstream identity provider, all of the protocol through
 * openid-client (the library apps/client uses). Rules:
 * - every authorization request carries a fresh `state` and a PKCE S256 challenge, and an OIDC
 *   one a fresh `nonce`; the three stay server-side with the attempt (the browser sees `state` only);
 * - OIDC: the issuer is discovered, the code exchanged, the ID token checked by openid-client
 *   (signature against the upstream's JWKS, iss, aud, exp, iat, nonce); Entra ID's multi-tenant
 *   issuers (`{tenantid}` in the discovered issuer of login.microsoftonline.com) are checked
 *   against the token's `tid` (openid-client), and `allowedTenants`, when set, limits `tid`;
 *   userinfo is read when the provider asks for it, for the same `sub`;
 * - OAuth 2.0 (GitHub-shaped): the configured endpoints, the code exchanged with PKCE and
 *   `state`, then the user endpoint and, when configured, the e-mail list whose primary
 *   verified address is the only verified e-mail;
 * - the user's id and e-mail are the claims the provider's mapping names; an e-mail is verified
 *   when its verified claim says so or the provider trusts its e-mails (`trustEmail`);
 * - the secret (or private key) of the provider goes to its token endpoint only;
 * - plain http is allowed only towards a loopback host (a provider on the same machine);
 * - a discovered configuration is reused for DISCOVERY_TTL_MS (injected clock) and dropped on
 *   a failure, so an upstream that comes back is found again;
 * - failures are UpstreamError with a stable code: `upstream_unavailable` (unreachable, timed
 *   out, not an OAuth answer), `upstream_refused` (error=access_denied), `upstream_error` (any
 *   other error answer), `state_mismatch`, `invalid_upstream_response` (ID token, nonce,
 *   subject or tenant checks failed);
 * - openid-client is loaded with the first upstream sign-in, not at start: a server with no
 *   upstream provider never loads it (bench/README.md, "Start-up").
 */
import { importJWK, type JWK } from 'jose';
import type * as Oidc from 'openid-client';
import { CodedError } from '../errors/coded-error.ts';
import { safeEqual, secretDigest } from '../crypto/safe-equal.ts';
import type { UpstreamCredentials, UpstreamProvider } from './upstream-provider.ts';

export const DISCOVERY_TTL_MS = 10 * 60_000;
const TIMEOUT_SECONDS = 10;

export type UpstreamErrorCode = 'upstream_unavailable' | 'upstream_refused' | 'upstream_error' | 'state_mismatch' | 'invalid_upstream_response';

export class UpstreamError extends CodedError<UpstreamErrorCode> {}

/** What the browser's round trip must bring back: kept server-side with the attempt. */
export interface UpstreamChecks {
  state: string;
  codeVerifier: string;
  /** OIDC only. */
  nonce?: string;
}

/** The upstream's answer about the user, before any mapping. */
export interface UpstreamIdentity {
  /** The upstream's stable id of the user (`sub`, GitHub's numeric `id`). */
  subject: string;
  /** ID-token claims merged with userinfo (OIDC), or the user endpoint's fields (OAuth 2.0). */
  claims: Record<string, unknown>;
  /** The address the upstream says is verified, if any. */
  verifiedEmail?: string;
  /** An address the upstream sent without saying it is verified. */
  unverifiedEmail?: string;
  amr: string[];
  acr?: string;
}

export interface UpstreamClient {
  /** The authorization URL and the checks to keep for the callback. */
  start(provider: UpstreamProvider, credentials: UpstreamCredentials, redirectUri: string): Promise<{ url: URL; checks: UpstreamChecks }>;
  /**
   * The origins the provider's authorization endpoint may have, known without a request: the
   * configured endpoint's, or the issuer's and, once discovered, the discovered endpoint's (the
   * login page lets its forms lead there: Chromium applies form-action to redirects).
   */
  authorizationOrigins(provider: UpstreamProvider): string[];
  /** The callback's URL (with `code` and `state`, or `error`) checked and exchanged. */
  finish(provider: UpstreamProvider, credentials: UpstreamCredentials, callbackUrl: URL, checks: UpstreamChecks): Promise<UpstreamIdentity>;
}

export interface UpstreamClientDeps {
  fetch: typeof globalThis.fetch;
  clock: () => number;
}

/** openid-client, set by loadOpenidClient before anything below uses it. */
let oidc: typeof Oidc;
let loading: Promise<void> | undefined;
const loadOpenidClient = () =>
  (loading ??= import('openid-client').then((module) => {
    oidc = module;
  }));

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const loopbackHttp = (url: string | undefined): boolean => {
  if (!url) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' && (LOOPBACK.has(parsed.hostname) || parsed.hostname.startsWith('127.'));
  } catch {
    return false;
  }
};

/** openid-client codes meaning the upstream answered something that is not an OAuth answer, or nothing. */
const UNREACHABLE = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_PARSE_ERROR', 'OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_HTTP_REQUEST_FORBIDDEN']);

function upstreamFailure(error: unknown, during: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (error instanceof oidc.AuthorizationResponseError) {
    return error.error === 'access_denied'
      ? new UpstreamError('upstream_refused', `the provider refused the sign-in (${during})`)
      : new UpstreamError('upstream_error', `the provider answered ${error.error} (${during})`);
  }
  if (error instanceof oidc.ResponseBodyError) return new UpstreamError('upstream_error', `the provider answered ${error.error} (${during})`);
  if (error instanceof oidc.ClientError && !UNREACHABLE.has(error.code ?? '')) {
    return new UpstreamError('invalid_upstream_response', `the provider's answer failed a check (${during}: ${error.message})`);
  }
  return new UpstreamError('upstream_unavailable', `the provider could not be reached (${during})`);
}

async function clientAuthentication(provider: UpstreamProvider, credentials: UpstreamCredentials): Promise<Oidc.ClientAuth> {
  switch (provider.tokenEndpointAuthMethod) {
    case 'client_secret_basic':
      return oidc.ClientSecretBasic(credentials.clientSecret ?? '');
    case 'client_secret_post':
      return oidc.ClientSecretPost(credentials.clientSecret ?? '');
    case 'private_key_jwt': {
      const jwk = credentials.privateJwk as JWK | undefined;
      if (!jwk) throw new UpstreamError('upstream_error', 'the provider has no private key');
      const key = await importJWK(jwk, typeof jwk.alg === 'string' ? jwk.alg : 'RS256');
      if (key instanceof Uint8Array) throw new UpstreamError('upstream_error', 'the private key is not an asymmetric key');
      return oidc.PrivateKeyJwt(typeof jwk.kid === 'string' ? { key, kid: jwk.kid } : key);
    }
  }
}

export function createUpstreamClient(deps: UpstreamClientDeps): UpstreamClient {
  const discovered = new Map<string, { at: number; server: Promise<Oidc.Configuration> }>();
  // The authorization endpoint each provider's discovery named (slug → origin).
  const discoveredOrigins = new Map<string, string>();
  const customFetch: Oidc.CustomFetch = (url, options) => deps.fetch(url, options as RequestInit);

  async function configuration(provider: UpstreamProvider, credentials: UpstreamCredentials): Promise<Oidc.Configuration> {
    await loadOpenidClient();
    const auth = await clientAuthentication(provider, credentials);
    const insecure = loopbackHttp(provider.issuer ?? provider.authorizationEndpoint);
    const execute = insecure ? [oidc.allowInsecureRequests] : [];
    if (provider.kind === 'oauth2') {
      const { authorizationEndpoint, tokenEndpoint } = provider;
      if (!authorizationEndpoint || !tokenEndpoint) throw new UpstreamError('upstream_error', 'the provider has no authorization or token endpoint');
      const server = new oidc.Configuration(
        { issuer: new URL(authorizationEndpoint).origin, authorization_endpoint: authorizationEndpoint, token_endpoint: tokenEndpoint },
        provider.clientId,
        undefined,
        auth,
      );
      for (const extension of execute) extension(server);
      return withFetch(server);
    }
    if (!provider.issuer) throw new UpstreamError('upstream_error', 'the provider has no issuer');
    // A configuration holds its client authentication: changed credentials are another entry.
    // The key holds a digest of them, never the secret.
    const key = JSON.stringify([provider.slug, provider.issuer, provider.clientId, provider.tokenEndpointAuthMethod, secretDigest(JSON.stringify(credentials)).toString('base64url')]);
    const now = deps.clock();
    let entry = discovered.get(key);
    if (!entry || now - entry.at >= DISCOVERY_TTL_MS) {
      const server = oidc.discovery(new URL(provider.issuer), provider.clientId, undefined, auth, {
        [oidc.customFetch]: customFetch,
        execute,
        timeout: TIMEOUT_SECONDS,
      });
      entry = { at: now, server };
      discovered.set(key, entry);
      server.then(
        (found) => {
          const endpoint = found.serverMetadata().authorization_endpoint;
          if (endpoint) discoveredOrigins.set(provider.slug, new URL(endpoint).origin);
        },
        () => discovered.delete(key),
      );
    }
    return entry.server.catch((error: unknown) => {
      throw upstreamFailure(error, 'discovery');
    });
  }

  function withFetch(server: Oidc.Configuration): Oidc.Configuration {
    server[oidc.customFetch] = customFetch;
    server.timeout = TIMEOUT_SECONDS;
    return server;
  }

  /** The user's id and e-mail as the provider's claim mapping names them. */
  function identityOf(provider: UpstreamProvider, claims: Record<string, unknown>, extra: { verifiedEmail?: string; amr: string[]; acr?: string }): UpstreamIdentity {
    const mapping = provider.claims;
    const rawId = claims[mapping.subject];
    if ((typeof rawId !== 'string' && typeof rawId !== 'number') || String(rawId) === '') throw new UpstreamError('invalid_upstream_response', `the user has no ${mapping.subject}`);
    const sent = typeof claims[mapping.email] === 'string' && claims[mapping.email] ? (claims[mapping.email] as string) : undefined;
    const flagged = claims[mapping.emailVerified] === true || claims[mapping.emailVerified] === 'true';
    const verifiedEmail = extra.verifiedEmail ?? (sent && (flagged || provider.trustEmail) ? sent : undefined);
    return {
      subject: String(rawId),
      claims,
      ...(verifiedEmail ? { verifiedEmail } : sent ? { unverifiedEmail: sent } : {}),
      amr: extra.amr,
      ...(extra.acr === undefined ? {} : { acr: extra.acr }),
    };
  }

  async function oidcIdentity(provider: UpstreamProvider, server: Oidc.Configuration, tokens: Oidc.TokenEndpointResponse & Oidc.TokenEndpointResponseHelpers): Promise<UpstreamIdentity> {
    const idClaims = tokens.claims();
    if (!idClaims) throw new UpstreamError('invalid_upstream_response', 'the provider returned no ID token');
    const tid = typeof idClaims.tid === 'string' ? idClaims.tid : undefined;
    const tenants = provider.allowedTenants ?? [];
    if (tenants.length > 0 && (!tid || !tenants.includes(tid))) throw new UpstreamError('invalid_upstream_response', 'the user belongs to a tenant this provider does not allow');
    let claims: Record<string, unknown> = { ...idClaims };
    if (provider.useUserinfo && server.serverMetadata().userinfo_endpoint) {
      try {
        const userinfo = await oidc.fetchUserInfo(server, tokens.access_token, idClaims.sub);
        // The ID token's claims win: they are signed.
        claims = { ...userinfo, ...idClaims };
      } catch (error) {
        throw upstreamFailure(error, 'userinfo');
      }
    }
    return identityOf(provider, claims, {
      amr: Array.isArray(idClaims.amr) ? idClaims.amr.filter((value): value is string => typeof value === 'string') : [],
      ...(typeof idClaims.acr === 'string' ? { acr: idClaims.acr } : {}),
    });
  }

  async function oauth2Identity(provider: UpstreamProvider, server: Oidc.Configuration, accessToken: string): Promise<UpstreamIdentity> {
    const read = async (endpoint: string, during: string): Promise<unknown> => {
      try {
        const response = await oidc.fetchProtectedResource(server, accessToken, new URL(endpoint), 'GET', undefined, new Headers({ accept: 'application/json' }));
        if (!response.ok) throw new UpstreamError('upstream_error', `the provider's ${during} endpoint answered ${response.status}`);
        return await response.json();
      } catch (error) {
        if (error instanceof SyntaxError) throw new UpstreamError('upstream_unavailable', `the provider's ${during} endpoint answered no JSON`);
        throw upstreamFailure(error, during);
      }
    };
    if (!provider.userinfoEndpoint) throw new UpstreamError('upstream_error', 'the provider has no user endpoint');
    const user = await read(provider.userinfoEndpoint, 'user');
    if (typeof user !== 'object' || user === null || Array.isArray(user)) throw new UpstreamError('invalid_upstream_response', 'the user endpoint answered no user');
    let verifiedEmail: string | undefined;
    if (provider.emailsEndpoint) {
      const emails = await read(provider.emailsEndpoint, 'email');
      if (Array.isArray(emails)) {
        // Only a primary, verified address: GitHub lists unverified ones too.
        verifiedEmail = emails.find((entry): entry is { email: string } => typeof entry === 'object' && entry !== null && typeof entry.email === 'string' && entry.primary === true && entry.verified === true)?.email;
      }
    }
    const identity = identityOf(provider, user as Record<string, unknown>, { ...(verifiedEmail ? { verifiedEmail } : {}), amr: [] });
    // With an e-mail list, only its verified address counts, whatever the user object says.
    if (provider.emailsEndpoint && !verifiedEmail && identity.verifiedEmail) {
      const { verifiedEmail: unconfirmed, ...rest } = identity;
      return { ...rest, unverifiedEmail: unconfirmed };
    }
    return identity;
  }

  const originOf = (url: string | undefined): string[] => {
    try {
      return url ? [new URL(url).origin] : [];
    } catch {
      return [];
    }
  };

  return {
    authorizationOrigins(provider) {
      const known = provider.kind === 'oauth2' ? originOf(provider.authorizationEndpoint) : [...originOf(provider.issuer), ...originOf(discoveredOrigins.get(provider.slug))];
      return [...new Set(known)];
    },

    async start(provider, credentials, redirectUri) {
      const server = await configuration(provider, credentials);
      const checks: UpstreamChecks = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier(), ...(provider.kind === 'oidc' ? { nonce: oidc.randomNonce() } : {}) };
      const scopes = provider.kind === 'oidc' && !provider.scopes.includes('openid') ? ['openid', ...provider.scopes] : provider.scopes;
      const url = oidc.buildAuthorizationUrl(server, {
        redirect_uri: redirectUri,
        scope: scopes.join(' '),
        state: checks.state,
        ...(checks.nonce ? { nonce: checks.nonce } : {}),
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url, checks };
    },

    async finish(provider, credentials, callbackUrl, checks) {
      // The attempt is this browser's (it lives on its interaction); a state that is not its own
      // is a forged or crossed callback, refused before anything is sent upstream.
      if (!safeEqual(callbackUrl.searchParams.get('state') ?? '', checks.state)) throw new UpstreamError('state_mismatch', 'the callback does not answer this sign-in');
      const server = await configuration(provider, credentials);
      let tokens: Oidc.TokenEndpointResponse & Oidc.TokenEndpointResponseHelpers;
      try {
        tokens = await oidc.authorizationCodeGrant(server, callbackUrl, {
          expectedState: checks.state,
          pkceCodeVerifier: checks.codeVerifier,
          ...(checks.nonce ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
        });
      } catch (error) {
        throw upstreamFailure(error, 'code exchange');
      }
      return provider.kind === 'oidc' ? oidcIdentity(provider, server, tokens) : oauth2Identity(provider, server, tokens.access_token);
    },
  };
}
