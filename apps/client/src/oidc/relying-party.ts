/**
 * The protocol work of the relying party, all of it through openid-client (certified RP library).
 * Rules:
 * - the authorization server is discovered from its issuer on first use, and again after a failure;
 * - confidential client, `client_secret_basic`; the secret never leaves this module but to the token endpoint;
 * - every authorization request carries state, nonce and a PKCE S256 challenge;
 * - the ID token is checked for signature (JWKS), iss, aud, exp and nonce (openid-client with
 *   non-repudiation checks), and its profile claims with the contracts' schema;
 * - a refused refresh (`invalid_grant`) is reported as {@link RefreshRefused}; anything else
 *   that prevents talking to the server as {@link ServerUnreachable}.
 */
import * as oidc from 'openid-client';
import { IdTokenClaims } from '@gatehouse/contracts';
import type { ClientConfig } from '../config/config.ts';
import type { SessionTokens, SessionUser } from '../sessions/session-data.ts';

export interface AuthorizationRequest {
  state: string;
  nonce: string;
  codeChallenge: string;
  /** `none` for a silent SSO check. */
  prompt?: 'none';
}

export interface LoginResult {
  user: SessionUser;
  tokens: SessionTokens;
  /** The ID token's `sid`, when it has one. */
  sid?: string;
}

export interface RelyingParty {
  authorizationUrl(request: AuthorizationRequest): Promise<URL>;
  /** Exchanges the code of `callbackUrl` after checking its state, then validates the ID token. */
  completeLogin(callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<LoginResult>;
  refresh(current: SessionTokens): Promise<SessionTokens>;
  endSessionUrl(idToken: string | undefined): Promise<URL>;
  /** Best effort: revokes a refresh token at logout. */
  revoke(token: string): Promise<void>;
  /** The authorization server's issuer and JWKS URI, as discovered (logout-token.ts). */
  serverKeys(): Promise<{ issuer: string; jwksUri: string }>;
  /** True once the authorization server's discovery document is loaded (loading it now if needed). */
  ready(): Promise<boolean>;
}

/** The authorization server refused the refresh token (expired, revoked, reused). */
export class RefreshRefused extends Error {
  readonly code = 'refresh_refused';
}

/** The authorization server answered an error to the code exchange, or the ID token failed a check. */
export class LoginRefused extends Error {
  readonly code: 'token_exchange_failed' | 'invalid_id_token';
  constructor(code: 'token_exchange_failed' | 'invalid_id_token', message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.code = code;
  }
}

/** The authorization server could not be reached or answered something unusable. */
export class ServerUnreachable extends Error {
  readonly code = 'authorization_server_unavailable';
}

/** openid-client codes meaning the server answered something that is not an OAuth answer (e.g. a 500). */
const UNUSABLE_RESPONSE = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_PARSE_ERROR', 'OAUTH_HTTP_REQUEST_FORBIDDEN']);
const unusable = (error: unknown): boolean => !(error instanceof oidc.ClientError) || UNUSABLE_RESPONSE.has(error.code ?? '');

const ProfileClaims = IdTokenClaims.pick({ sub: true, name: true, email: true, groups: true }).partial({ name: true, email: true, groups: true });

export interface RelyingPartyDeps {
  fetch: typeof globalThis.fetch;
  clock: () => number;
}

export function createRelyingParty(config: ClientConfig, deps: RelyingPartyDeps): RelyingParty {
  let discovered: Promise<oidc.Configuration> | undefined;
  const customFetch: oidc.CustomFetch = (url, options) => deps.fetch(url, options as RequestInit);

  const configuration = (): Promise<oidc.Configuration> => {
    discovered ??= oidc
      .discovery(new URL(config.issuer), config.clientId, { client_secret: config.clientSecret }, oidc.ClientSecretBasic(config.clientSecret), {
        [oidc.customFetch]: customFetch,
        execute: [oidc.enableNonRepudiationChecks, ...(config.allowInsecureIssuer ? [oidc.allowInsecureRequests] : [])],
        timeout: 10,
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw new ServerUnreachable(`discovery of ${config.issuer} failed`, { cause: error });
      });
    return discovered;
  };

  const toTokens = (response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, previous?: SessionTokens): SessionTokens => ({
    accessToken: response.access_token,
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    idToken: response.id_token ?? previous?.idToken,
    expiresAt: deps.clock() + (response.expiresIn() ?? 300) * 1000,
    scope: response.scope ?? previous?.scope ?? config.scopes.join(' '),
  });

  return {
    async authorizationUrl(request) {
      return oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: config.redirectUri,
        scope: config.scopes.join(' '),
        state: request.state,
        nonce: request.nonce,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
        ...(request.prompt ? { prompt: request.prompt } : {}),
      });
    },

    async completeLogin(callbackUrl, checks) {
      const server = await configuration();
      let response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers;
      try {
        response = await oidc.authorizationCodeGrant(server, callbackUrl, {
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.codeVerifier,
          idTokenExpected: true,
        });
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
          throw new LoginRefused('token_exchange_failed', `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`, { cause: error });
        }
        if (!unusable(error)) throw new LoginRefused('invalid_id_token', (error as Error).message, { cause: error });
        throw new ServerUnreachable('token endpoint unreachable', { cause: error });
      }
      const claims = ProfileClaims.safeParse(response.claims());
      if (!claims.success) throw new LoginRefused('invalid_id_token', 'the ID token lacks the expected claims');
      const { sub, name, email, groups } = claims.data;
      const sid = response.claims()?.sid;
      return { user: { sub, name, email, groups: groups ?? [] }, tokens: toTokens(response), ...(typeof sid === 'string' ? { sid } : {}) };
    },

    async refresh(current) {
      if (!current.refreshToken) throw new RefreshRefused('no refresh token');
      const server = await configuration();
      try {
        return toTokens(await oidc.refreshTokenGrant(server, current.refreshToken), current);
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError && (error.error === 'invalid_grant' || error.status === 400 || error.status === 401)) {
          throw new RefreshRefused(error.error, { cause: error });
        }
        if (!unusable(error)) throw new RefreshRefused((error as Error).message, { cause: error });
        throw new ServerUnreachable('token endpoint unreachable', { cause: error });
      }
    },

    async endSessionUrl(idToken) {
      return oidc.buildEndSessionUrl(await configuration(), {
        post_logout_redirect_uri: config.postLogoutRedirectUri,
        client_id: config.clientId,
        ...(idToken ? { id_token_hint: idToken } : {}),
      });
    },

    async revoke(token) {
      await oidc.tokenRevocation(await configuration(), token, { token_type_hint: 'refresh_token' });
    },

    async serverKeys() {
      const metadata = (await configuration()).serverMetadata();
      if (!metadata.jwks_uri) throw new ServerUnreachable(`${config.issuer} publishes no jwks_uri`);
      return { issuer: metadata.issuer, jwksUri: metadata.jwks_uri };
    },

    ready: () => configuration().then(
      () => true,
      () => false,
    ),
  };
}
