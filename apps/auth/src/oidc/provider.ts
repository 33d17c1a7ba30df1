/**
 * Builds the oidc-provider instance from the configuration.
 * Rules it sets:
 * - routes under /oauth2/v1 (authorize, token, keys, userinfo, introspect, revoke, logout);
 * - PKCE S256 is required for public clients and honoured for confidential ones;
 * - confidential clients authenticate with the one method they are registered for:
 *   client_secret_basic or client_secret_post, with their current secret or, during a rotation's
 *   grace period, the previous one (client-secret-check.ts); client_secret_jwt (HS256, current
 *   secret); private_key_jwt (RS256, PS256, ES256, Ed25519, EdDSA) with the keys registered inline or at
 *   their jwks_uri (client-keys-fetch.ts); a client assertion is accepted once, across servers
 *   (replay-detection.ts);
 * - authorization codes live 60 s and are single use (reuse revokes the grant: oidc-provider);
 * - every code exchange of a client allowed `refresh_token` gets a rotating refresh token;
 *   presenting a used one revokes the grant (oidc-provider); a refresh refused for its resource
 *   does not rotate (refresh-rotation.ts); logout revokes the session's grants
 *   unless the client asked for offline_access (token-policies.ts); the session's clients that
 *   registered a backchannel_logout_uri are told by a logout token (backchannel-logout.ts);
 * - the SSO session lives `sessionTtl`; cookies are httpOnly, SameSite=Lax, signed, and Secure
 *   when the request is https (directly or through a trusted proxy);
 * - a first-party client is granted what it asks for; any other client gets what the user allowed
 *   it on the consent page, remembered per user and client (grants.ts, interactions/consent.ts);
 *   `prompt=consent` always shows the page; offline_access is asked on it like any scope, with or
 *   without `prompt=consent`, and granted without it to a first-party client (offline-access.ts);
 * - the API scopes of every grant pass the access policy (policy/scope-policy.ts): the grant
 *   built at authorization (grants.ts) and the resource server's scopes at every token request
 *   (resource-server.ts) leave out what the client or the user may not have;
 * - ID tokens carry the profile, email and groups claims, `amr` and the session's `acr` (the one
 *   value MFA_ACR, listed as acr_values_supported, find-account.ts);
 * - JWT access tokens carry `grant_id`, so revoking the grant revokes them (revocation-store.ts),
 *   and Okta's `cid` and `scp` as copies of `client_id` and `scope` (okta-claims.ts);
 * - the device authorization grant (RFC 8628) at /oauth2/v1/device/authorize, its verification
 *   page at /activate (device-flow.ts, device-grant-answers.ts, user-code-regulation.ts);
 * - errors of the browser endpoints (authorize, logout) are the HTML error page for browsers;
 *   errors of the API endpoints are always RFC 6749 JSON, whatever the Accept header.
 */
import { Provider, type Configuration } from 'oidc-provider';
import { AUTH_ROUTES, DPOP_SIGNING_ALGORITHMS, OIDC_SCOPES } from '@gatehouse/contracts';
import { isDatabaseUnavailable } from '@gatehouse/db';
import { cookieSigner } from '@gatehouse/http';
import type { AuthConfig } from '../config/config.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { Logger } from '../logging/logger.ts';
import type { ScopeGate } from '../policy/scope-policy.ts';
import type { ConsentStore } from '../consent/consent-store.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { AuthMetrics } from '../metrics/auth-metrics.ts';
import { CLAIMS, createFindAccount } from './find-account.ts';
import { MFA_ACR } from '../mfa/acr.ts';
import { grantLoader } from './grants.ts';
import { keepOfflineAccess } from './offline-access.ts';
import { acceptPreviousClientSecret } from './client-secret-check.ts';
import { clientKeysFetch } from './client-keys-fetch.ts';
import { detectReplaysOnce } from './replay-detection.ts';
import { createInteractionPolicy, promptValuesSupported } from './interaction-policy.ts';
import { rotateRefreshToken } from './refresh-rotation.ts';
import { oktaClaims } from './okta-claims.ts';
import { resourceIndicators } from './resource-server.ts';
import { expiresWithSession, introspectionAllowed, resourceServerClients, revocationAllowed } from './token-policies.ts';
import { logoutSource, postLogoutSuccess } from './logout-source.ts';
import { actorClaims } from './token-exchange.ts';
import { DEVICE_CODE_TTL, deviceFlow } from './device-flow.ts';
import { routeBackchannelLogout } from './backchannel-logout.ts';
import type { BackchannelLogout } from '../sessions/backchannel-logout.ts';
import type { UserSessionStore } from '../sessions/user-sessions.ts';
import { accountClientMetadata } from '../clients/account-client.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { browserErrorPage } from './browser-error-page.ts';
import { INTERACTION_COOKIE, RESUME_COOKIE } from '../interactions/browser-interactions.ts';

/** Response types only a built-in client uses (clients/account-client.ts): supported, never advertised. */
export const BUILT_IN_RESPONSE_TYPES = ['none'] as const;

export const COOKIE_NAMES = {
  session: 'gh_auth_session',
  interaction: INTERACTION_COOKIE,
  resume: RESUME_COOKIE,
} as const;

/** oidc-provider routes a browser navigates to: their errors are the HTML error page. */
const BROWSER_ROUTES = new Set(['authorization', 'resume', 'end_session', 'end_session_confirm', 'end_session_success']);

/** Every way a client authenticates (the method registered for it is the only one it may use). */
const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const;
/** HS256 for client_secret_jwt, the others for private_key_jwt. */
const CLIENT_AUTH_SIGNING_ALGS = ['HS256', 'RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA'] as const;

export interface ProviderDeps {
  adapterFactory: Configuration['adapter'];
  accounts: AccountStore;
  /** The access policy (policy/scope-policy.ts), applied to the API scopes of every grant. */
  scopeGate: ScopeGate;
  /** What each user allowed each client (consent/consent-store.ts): the grant starts from it (grants.ts). */
  consents: Pick<ConsentStore, 'find'>;
  jwks: { keys: Record<string, unknown>[] };
  logger: Logger;
  audit: Auditor;
  metrics: AuthMetrics;
  /** Epoch ms: when a rotated-out client secret stops working (client-secret-check.ts). */
  clock: () => number;
  /** Tells the clients of a session ended by RP-initiated logout (oidc/backchannel-logout.ts). */
  backchannelLogout: Pick<BackchannelLogout, 'sessionsEnded'>;
  /** The account's other live sessions, counted by the page after a sign-out (logout-source.ts). */
  userSessions: Pick<UserSessionStore, 'list'>;
  /** Fetches the jwks_uri of private_key_jwt clients (client-keys-fetch.ts); the global fetch by default. */
  fetch?: typeof fetch;
}

export function createProvider(config: AuthConfig, deps: ProviderDeps): Provider {
  const interactionPolicy = createInteractionPolicy();
  const configuration: Configuration = {
    adapter: deps.adapterFactory,
    // The account page's own sign-in (clients/account-client.ts); every other client is in the clients table.
    clients: [accountClientMetadata(config.issuer)],
    jwks: deps.jwks as Configuration['jwks'],
    findAccount: createFindAccount(deps.accounts),
    claims: CLAIMS,
    // The acr every sign-in ends with (mfa/acr.ts), listed in discovery as acr_values_supported; ID
    // tokens carry it through the openid scope's claims (find-account.ts).
    acrValues: [MFA_ACR],
    scopes: [...OIDC_SCOPES],
    // Not an extra parameter: the validator of `scope`, run after oidc-provider's scope check,
    // keeps an offline_access sent without prompt=consent (offline-access.ts).
    extraParams: { scope: keepOfflineAccess },
    // API scopes belong to the API resource server (resource-server.ts); discovery-scopes.ts lists them.
    conformIdTokenClaims: false,
    routes: {
      authorization: AUTH_ROUTES.authorize,
      token: AUTH_ROUTES.token,
      jwks: AUTH_ROUTES.jwks,
      userinfo: AUTH_ROUTES.userinfo,
      introspection: AUTH_ROUTES.introspect,
      revocation: AUTH_ROUTES.revoke,
      end_session: AUTH_ROUTES.logout,
      device_authorization: AUTH_ROUTES.deviceAuthorize,
      code_verification: AUTH_ROUTES.activate,
    },
    cookies: {
      names: COOKIE_NAMES,
      // A keygrip-compatible signer with its HMAC keys prepared once (@gatehouse/http cookie-signer.ts).
      keys: cookieSigner(config.cookieKeys) as unknown as string[],
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    // The seed's JWT_token variant, per client (client-store.ts, token-response.ts).
    // previous_client_secret: the rotated-out secret during its grace period (client-secret-check.ts).
    // api_scope_limit: the client's API scope limit read with it, for the access policy (resource-server.ts).
    // first_party: the operator's own client, which skips the consent page (client-store.ts).
    extraClientMetadata: { properties: ['id_token_field', 'previous_client_secret', 'previous_client_secret_expires_at_ms', 'api_scope_limit', 'first_party'] },
    // Clients register `code` and/or `id_token` (client-store.ts; id_token with the implicit grant,
    // OIDC Core 3.2, without an access token); `none` is the account page's own (clients/account-client.ts),
    // left out of discovery. No response type issues an access token from the authorization endpoint.
    responseTypes: ['code', 'id_token', ...BUILT_IN_RESPONSE_TYPES],
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    // Introspection and revocation authenticate clients as the token endpoint does; discovery says
    // so (RFC 8414 §2: a missing revocation list would mean client_secret_basic only).
    discovery: {
      introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_AUTH_SIGNING_ALGS],
      revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_AUTH_SIGNING_ALGS],
      // What `prompt` may say (interaction-policy.ts): none, login, consent.
      prompt_values_supported: promptValuesSupported(interactionPolicy),
    },
    enabledJWA: {
      // Discovery lists these as dpop_signing_alg_values_supported; the API and userinfo accept the same (each one tested: dpop.test.ts).
      dPoPSigningAlgValues: [...DPOP_SIGNING_ALGORITHMS],
      // Discovery lists these as token_endpoint_auth_signing_alg_values_supported: HS256 for
      // client_secret_jwt, the others for private_key_jwt (each one tested: client-authentication.test.ts).
      clientAuthSigningAlgValues: [...CLIENT_AUTH_SIGNING_ALGS],
    },
    fetch: clientKeysFetch(deps.fetch ?? globalThis.fetch),
    // A client's JWK Set, as client-store.ts limits an inline one.
    fetchResponseBodyLimits: { jwks_uri: 65_536 },
    pkce: {
      required: (_ctx, client) => client.clientAuthMethod === 'none',
    },
    ttl: {
      AccessToken: config.accessTokenTtl,
      AuthorizationCode: config.authorizationCodeTtl,
      IdToken: config.idTokenTtl,
      RefreshToken: config.refreshTokenTtl,
      Interaction: config.interactionTtl,
      Session: config.sessionTtl,
      Grant: config.refreshTokenTtl,
      ClientCredentials: config.accessTokenTtl,
      DeviceCode: DEVICE_CODE_TTL,
    },
    rotateRefreshToken,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: expiresWithSession as never,
    extraTokenClaims: async (ctx, token) => {
      if (!('accountId' in token) || !token.accountId) return undefined;
      // The account this request already found (find-account.ts): its groups, without a second query.
      const found = ctx.oidc?.account;
      if (found?.accountId === token.accountId && Array.isArray(found.groups)) return { groups: found.groups as string[] };
      const account = await deps.accounts.findById(token.accountId as string);
      return account ? { groups: account.groups } : undefined;
    },
    loadExistingGrant: grantLoader({ gate: deps.scopeGate, consents: deps.consents }),
    formats: {
      customizers: {
        // The grant id lets introspection and resource servers refuse every JWT of a revoked
        // grant (code reuse, refresh-token replay, logout) without a lookup per token.
        jwt: async (_ctx, token, jwt) => {
          if ('grantId' in token && token.grantId) jwt.payload.grant_id = token.grantId;
          Object.assign(jwt.payload, oktaClaims(token));
          // An exchanged token names its acting party (token-exchange.ts).
          Object.assign(jwt.payload, actorClaims(token));
        },
      },
    },
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: interactionPolicy,
    },
    features: {
      devInteractions: { enabled: false as never },
      // The token's own client, and the API's client for API tokens (token-policies.ts).
      introspection: { enabled: true, allowedPolicy: introspectionAllowed(resourceServerClients(config)) as never },
      // Machine clients (the API's introspection credentials, service-to-service calls).
      clientCredentials: { enabled: true },
      deviceFlow: deviceFlow({ accounts: deps.accounts, audit: deps.audit }),
      revocation: { enabled: true, allowedPolicy: revocationAllowed as never },
      userinfo: { enabled: true },
      resourceIndicators: resourceIndicators(config, deps.scopeGate),
      // Back-Channel Logout 1.0: client metadata and discovery; delivery is Gatehouse's (backchannel-logout.ts).
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // Asks the user unless a valid id_token_hint of this session proves the request (logout-source.ts).
        logoutSource: logoutSource({ accounts: deps.accounts, userSessions: deps.userSessions }),
        // Lists the apps back-channel logout told and offers "Sign out everywhere" (logout-source.ts).
        postLogoutSuccessSource: postLogoutSuccess({ cookieKeys: config.cookieKeys, userSessions: deps.userSessions, clock: deps.clock }),
      },
    },
    // oidc-provider renders every endpoint's errors with this page when the caller prefers HTML;
    // the API endpoints (token, introspection, revocation, userinfo, keys) answer RFC 6749 JSON
    // whatever the Accept header says. Only the browser endpoints get the page.
    renderError: async (ctx, out) => {
      if (!BROWSER_ROUTES.has(String(ctx.oidc?.route))) {
        ctx.type = 'json';
        ctx.body = out;
        return;
      }
      ctx.type = 'html';
      ctx.body = browserErrorPage(out, pageLanguage(ctx));
    },
    clockTolerance: 5,
  };

  const provider = new Provider(config.issuer, configuration);
  provider.proxy = config.trustProxy;
  acceptPreviousClientSecret(provider, deps.clock);
  detectReplaysOnce(provider, deps.clock);
  routeBackchannelLogout(provider, deps.backchannelLogout);

  provider.on('server_error', (ctx, error) => {
    // A database outage is answered 503 by request-context.ts, and is not a bug to log with a stack.
    if (isDatabaseUnavailable(error)) ctx.state.databaseUnavailable = true;
    else deps.logger.error({ event: 'oidc.server_error', err: error }, 'oidc-provider server error');
  });
  provider.on('grant.success', (ctx) => {
    const grantType = String(ctx.oidc.params?.grant_type ?? '');
    deps.audit.record('token.issued', { client_id: ctx.oidc.client?.clientId, grant_type: grantType });
    deps.metrics.tokenIssued(grantType);
  });
  provider.on('authorization.success', (ctx) => {
    // The device flow's approval (device-flow.ts); the other authorizations are audited at their sign-in steps.
    if ((ctx.oidc.route === 'code_verification' || ctx.oidc.route === 'device_resume') && ctx.oidc.client && ctx.oidc.session?.accountId) {
      deps.audit.record('device.approved', { client_id: ctx.oidc.client.clientId, account_id: ctx.oidc.session.accountId, ip: ctx.ip });
    }
  });
  provider.on('grant.revoked', (_ctx, grantId) => deps.audit.record('grant.revoked', { grant_id: grantId }));
  provider.on('access_token.destroyed', () => deps.audit.record('token.revoked', { token_type: 'access_token' }));
  provider.on('refresh_token.destroyed', () => deps.audit.record('token.revoked', { token_type: 'refresh_token' }));
  provider.on('end_session.success', (ctx) => {
    deps.audit.record('session.logout', { client_id: ctx.oidc.client?.clientId });
  });
  return provider;
}
