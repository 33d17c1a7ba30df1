/**
 * The authorization server as a Koa app (never listening; server.ts hands its callback() to
 * runServer, packages/runtime run-server.ts, which listens).
 * Signing keys follow the lifecycle in keys/signing-keys.ts. Every KEY_CHECK_INTERVAL_MS (by the
 * injected clock; `maintenance`, run on a timer that runServer owns, never by a request) the app runs the key
 * maintenance (scheduled rotation, retirement, removal; safe on every instance at once) and
 * rebuilds the oidc-provider when the published keys or the signing key changed, whether by the
 * schedule, by `authctl keys rotate` or by another instance. A rotation therefore takes effect
 * on every instance within seconds, without a restart.
 * Sessions that expired are announced to their clients by back-channel logout just before the
 * purge deletes them (sessions/backchannel-logout.ts); failed deliveries are retried by the
 * `backchannel-logout` task of the same `maintenance`.
 * Expired oidc rows, passkey challenges, old regulation records and audit events older than
 * AUTH_AUDIT_RETENTION_DAYS are purged by the same `maintenance`, every PURGE_INTERVAL_MS.
 * Every audit event the app emits is stored too: the Auditor in the deps of whatever emits one
 * (audit/auditor.ts) writes the log line and hands the event to the audit sink (audit/audit-sink.ts).
 * Gatehouse's Koa app is in front of the mounted provider (its `callback()`, swapped on a key
 * rotation); the server's listener (`handler()`, http/provider-front.ts) sends the provider's
 * requests to it directly, with their metrics, and the rest to the Koa chain. The chain's order: request metrics → /healthz, /readyz → every path whose first segment is
 * not one of the own routes', nor one of their exact paths, goes to the current provider → the shared plumbing (http/plumbing.ts:
 * public origin → request id → request scope → access log → security headers → error handler) →
 * unrouted answers (404/405 in contract shape) → the own routes (http/route-group.ts): admin API
 * (/admin/v1, admin/http/) → admin console (/admin, console/) → static files → authenticator routes → passkey device routes →
 * account routes → the language switch (http/language-switch.ts) → "Sign out everywhere"
 * (logout/sign-out-everywhere.ts, by its one path under /oauth2/v1/logout). None of these needs oidc-provider's request context (the SSO session is read
 * with Session.get from the request).
 * The provider's own middleware (build()): the same plumbing → pending adapter writes
 * (oidc/pending-writes.ts) → session use (account/session-use.ts) → unrouted answers → Okta's
 * JWKS path (oidc/okta-keys-alias.ts) → wire contract → discovery scopes → what discovery leaves
 * out → form_post page (oidc/form-post.ts) → the device grant's answers (oidc/device-grant-answers.ts) →
 * user-code guessing at /activate (oidc/user-code-regulation.ts) → the device steps that need a stored
 * session (oidc/device-session-guard.ts) → revocation feed → JWT userinfo → JWT introspection →
 * token response → token-exchange answers → DPoP-required answer → the sign-in pages (interaction routes, passkey sign-in),
 * entered only by their paths, which resume the authorization through the provider's endpoint
 * inside their request; then oidc-provider's endpoints.
 */
import { AUTH_ROUTES } from '@gatehouse/contracts';
import Koa, { type Middleware } from 'koa';
import type { Provider } from 'oidc-provider';
import type { Database } from '@gatehouse/db';
import { periodicTasks, type PeriodicTasks } from '@gatehouse/runtime';
import { createMetricsRegistry, httpMetrics, httpMetricsRecorder, readBuildInfo, registerBuildInfo, registerDatabasePoolMetrics, type ReadinessChecks, type Registry } from '@gatehouse/metrics';
import type { AuthConfig } from './config/config.ts';
import type { AuthSchema } from './storage/schema.ts';
import type { Logger } from './logging/logger.ts';
import { createLogger } from './logging/logger.ts';
import { createAuthServices, regulationRules, type AuthServices } from './services.ts';
import { regulationRetentionMs } from './regulation/regulator.ts';
import { ensureSigningKey, loadSigningJwks, maintainSigningKeys, type SigningKeySet } from './keys/signing-keys.ts';
import { KEY_CHECK_INTERVAL_MS, keyPolicy } from './keys/key-policy.ts';
import { checkSealedSecrets } from './secrets/sealed-survey.ts';
import { BUILT_IN_RESPONSE_TYPES, createProvider } from './oidc/provider.ts';
import { logoutLanding } from './oidc/logout-landing.ts';
import { commitPendingWrites } from './oidc/pending-writes.ts';
import { wireContract } from './oidc/wire-contract.ts';
import { discoveryScopes } from './oidc/discovery-scopes.ts';
import { discoveryUnadvertised } from './oidc/discovery-unadvertised.ts';
import { formPostWithoutInlineScript } from './oidc/form-post.ts';
import { deviceGrantAnswers } from './oidc/device-grant-answers.ts';
import { userCodeRegulation } from './oidc/user-code-regulation.ts';
import { deviceSessionGuard } from './oidc/device-session-guard.ts';
import { join } from 'node:path';
import { registerSigningKeyAge } from './metrics/signing-key-age.ts';
import { createAuditSpool } from './audit/audit-spool.ts';
import { requestPlumbing } from './http/plumbing.ts';
import { unroutedAnswers } from './http/unrouted.ts';
import { INTERACTION_ROUTE_NAMES, interactionRenderer, interactionRoutes } from './interactions/routes.ts';
import type { HandlerServices } from './interactions/deps.ts';
import { AUTHENTICATOR_ROUTE_NAMES, authenticatorRoutes, passkeyDeviceRoutes } from './authenticator/routes.ts';
import { AUTH_STATIC_ASSETS, authStaticAssets } from './views/static-assets.ts';
import { passkeySignInRoutes } from './interactions/passkey/passkey-routes.ts';
import { ACCOUNT_ROUTES, accountRoutes } from './account/routes.ts';
import { sessionUse } from './account/session-use.ts';
import { createJwtAccessTokens } from './oidc/jwt-access-tokens.ts';
import { jwtIntrospection } from './oidc/jwt-introspection.ts';
import { resourceServerClients } from './oidc/token-policies.ts';
import { jwtUserinfo } from './oidc/jwt-userinfo.ts';
import { opaqueAccessTokens, opaqueSubjectTokens } from './oidc/opaque-access-tokens.ts';
import { userinfoDpop } from './oidc/userinfo-dpop.ts';
import { dpopRequiredAnswer } from './oidc/dpop-required.ts';
import { tokenResponse } from './oidc/token-response.ts';
import { registerTokenExchange, tokenExchangeAnswers } from './oidc/token-exchange.ts';
import { oktaKeysAlias } from './oidc/okta-keys-alias.ts';
import { ADMIN_SCOPES } from './policy/admin-scopes.ts';
import { createAdminApi } from './admin/http/admin-api.ts';
import { ADMIN_BASE } from './admin/http/admin-router.ts';
import { firstSegment, routeGroup, servedPaths, servedSegments, type RouteGroupPart } from './http/route-group.ts';
import { issuePasswordReset } from './admin/password-reset.ts';
import { createUserAdmin } from './admin/user-admin.ts';
import { createKeyAdmin } from './admin/key-admin.ts';
import { createClientAdmin } from './admin/client-admin.ts';
import { createScopeAdmin } from './admin/scope-admin.ts';
import type { Actor } from './audit/actor.ts';
import { createAdminOverview } from './admin/overview.ts';
import { createConsoleRouter } from './console/console-routes.ts';
import { consoleSections } from './console/sections.ts';
import { revocationFeed } from './oidc/revocation-feed.ts';
import type { JWK } from 'jose';
import { createAuthMetrics } from './metrics/auth-metrics.ts';
import { authRouteName } from './http/route-name.ts';
import { PASSKEY_PATHS } from './views/passkey-paths.ts';
import { ADMIN_ROUTE_PATTERNS } from './admin/http/admin-paths.ts';
import { healthRoutes } from './health/health-routes.ts';
import { providerFront } from './http/provider-front.ts';
import type { RequestListener } from 'node:http';
import { createAuditSink } from './audit/audit-sink.ts';
import { createAuditor } from './audit/auditor.ts';
import { createIdentityProviderService } from './federation/identity-provider-service.ts';
import { createBackchannelLogout, type BackchannelLogout } from './sessions/backchannel-logout.ts';
import { createLogoutTokenSigner } from './sessions/logout-token.ts';
import { registryDirectory } from './federation/registry-directory.ts';
import { createUpstreamClient } from './federation/upstream-client.ts';
import type { Mailer } from './mail/mailer.ts';
import { createMailer } from './mail/create-mailer.ts';
import { OUTBOX_PATH, outboxRoutes } from './mail/outbox-page.ts';
import { languageSwitchRoutes } from './http/language-switch.ts';
import { LANGUAGE_PATH } from './i18n/locales.ts';
import { SIGN_OUT_EVERYWHERE_PATH, signOutEverywhereRoutes } from './logout/sign-out-everywhere.ts';
import type { DevOutbox } from './mail/dev-outbox.ts';

export { KEY_CHECK_INTERVAL_MS };
const PURGE_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;
const BACKCHANNEL_RETRY_TICK_MS = 5_000;
const EXPIRED_SESSIONS_PER_PURGE = 10_000;

export interface AppDeps {
  database: Database<AuthSchema>;
  clock?: () => number;
  logger?: Logger;
  services?: AuthServices;
  /**
   * Where request, pool and login metrics are registered; server.ts passes the registry that
   * runServer's metrics listener serves. By default a fresh registry without process metrics.
   */
  metrics?: Registry;
  /** Posts back-channel logout tokens to clients; the global fetch by default. */
  fetch?: typeof globalThis.fetch;
  /**
   * Sends mail (password recovery, e-mail verification). By default the one config.mail names
   * (mail/create-mailer.ts): SMTP, the development outbox, or none (production without AUTH_SMTP_URL).
   * `null` means none.
   */
  mailer?: Mailer | null;
}

export interface AuthApp extends Koa {
  /**
   * The server's request listener: the current provider's requests go to it directly, with their
   * request metrics, and every other one to the Koa chain (http/provider-front.ts). Koa's
   * `callback()` is the chain alone, which hands the provider's requests on itself.
   */
  handler(): RequestListener;
  /** The services the app runs on (stores, regulator); used by tests. */
  readonly services: AuthServices;
  /**
   * Runs the signing-key maintenance now (scheduled rotation, retirement, removal), re-reads the
   * keys and rebuilds the provider if the published keys or the signing key changed.
   */
  reloadKeys(): Promise<boolean>;
  /**
   * The periodic work (key checks, purges): server.ts hands it to runServer, which runs it on a
   * timer (runOnTimer) and stops it at shutdown; tests call `maintenance.runDue()` after moving their clock.
   */
  readonly maintenance: PeriodicTasks;
  /** The registry holding this app's metrics. */
  readonly metrics: Registry;
  /** The mailer the app sends through, if any (tests read the development outbox). */
  readonly mailer: Mailer | undefined;
  /**
   * The back-channel logout seam (sessions/backchannel-logout.ts); tests run its due retries and
   * read what waits.
   */
  readonly backchannelLogout: Pick<BackchannelLogout, 'runDue' | 'pending'>;
  /** Resolves when every audit event emitted so far is stored (or reported as not stored); before closing the database. */
  flushAudit(): Promise<void>;
  /**
   * The app's part of shutdown, once no request or maintenance runs and before the database
   * closes: back-channel deliveries still waiting for a retry (held in memory) are dropped, each
   * audited `session.backchannel_logout.dropped`, then the audit trail is flushed.
   */
  shutdown(): Promise<void>;
}

export async function createApp(config: AuthConfig, deps: AppDeps): Promise<AuthApp> {
  const clock = deps.clock ?? Date.now;
  const logger = deps.logger ?? createLogger({ level: config.logLevel });
  const services = deps.services ?? createAuthServices(config, deps.database, clock);
  const metrics = deps.metrics ?? createMetricsRegistry({ processMetrics: false });
  // Events the database cannot take wait in memory, then in the spool under the data directory.
  registerBuildInfo(metrics, readBuildInfo('auth', new URL('../package.json', import.meta.url)));
  const spool = createAuditSpool({ directory: join(config.dataDir, 'audit-spool'), logger });
  const auditSink = createAuditSink({ store: services.auditEvents, clock, logger, spool, metrics });
  const audit = createAuditor({ logger, sink: auditSink });
  const policy = keyPolicy(config);
  // A keyring that cannot open every sealed secret stops start-up with one line (secrets/sealed-survey.ts).
  await checkSealedSecrets(deps.database.db, services.box);
  await ensureSigningKey(services.keys, clock());
  const authMetrics = createAuthMetrics(metrics);
  registerDatabasePoolMetrics(metrics, deps.database);

  let current: { provider: Provider; handler: ReturnType<Provider['callback']>; fingerprint: string };
  let signingKeys: readonly JWK[] = [];
  // Every end of an SSO session tells its clients through this one seam (sessions/backchannel-logout.ts).
  const backchannelLogout = createBackchannelLogout({
    sign: createLogoutTokenSigner({ issuer: config.issuer, clients: services.clients, signingKey: async () => signingKeys[0], clock }),
    fetch: deps.fetch ?? globalThis.fetch,
    clock,
    audit,
    count: (outcome) => authMetrics.backchannelLogout(outcome),
    logger,
  });
  // Each route factory's type takes only the services its handlers use.
  const identityProviders = createIdentityProviderService({ store: services.identityProviderStore, links: services.accountLinks, audit });
  // The sign-in with upstream identity providers: the registry's enabled providers, and
  // openid-client as the relying party (its requests through the injected fetch).
  const federation = { directory: registryDirectory(identityProviders), upstream: createUpstreamClient({ fetch: deps.fetch ?? globalThis.fetch, clock }) };
  const mailer = deps.mailer === null ? undefined : (deps.mailer ?? createMailer(config, { logger, clock }));
  const handlerServices: HandlerServices = { ...services, config, provider: () => current.provider, logger, audit, clock, metrics: authMetrics, backchannelLogout, identityProviders, federation, mailer };

  const staticAssets = authStaticAssets();

  let signingSince: number | null = null;
  registerSigningKeyAge(metrics, () => signingSince, clock);
  const tokens = createJwtAccessTokens({
    issuer: config.issuer,
    keys: () => signingKeys,
    clients: services.clients,
    accounts: services.accounts,
    revocations: services.revocations,
    clock,
  });

  // The one service layer behind the admin API, the admin console and (with their own deps) authctl.
  const admin = {
    users: createUserAdmin({ ...services, backchannelLogout, audit, clock, accessTokenTtl: config.accessTokenTtl }),
    issuePasswordReset: (actor: Actor, username: string) => issuePasswordReset({ ...services, audit, issuer: config.issuer }, actor, username),
    // reloadKeys is defined below; it is only called once requests are served.
    keys: createKeyAdmin({ keys: services.keys, audit, clock, retainMs: policy.retainMs, onRotated: () => reloadKeys() }),
    clients: createClientAdmin({ clients: services.clients, audit }),
    identityProviders,
    flushAudit: () => auditSink.flush(),
  };
  const adminApi = createAdminApi({
    issuer: config.issuer,
    tokens,
    accounts: services.accounts,
    policies: services.scopePolicies,
    ...admin,
    auditTrail: services.auditTrail,
    clock,
    logger,
  }).middleware();
  const overview = createAdminOverview({
    ...services,
    rules: regulationRules(config),
    keys: admin.keys,
    version: readBuildInfo('auth', new URL('../package.json', import.meta.url)),
    flush: admin.flushAudit,
    clock,
  });
  const adminConsole = createConsoleRouter(handlerServices, consoleSections(), {
    ...handlerServices,
    ...admin,
    policies: services.scopePolicies,
    scopes: createScopeAdmin({ policies: services.scopePolicies, apiScopes: config.api.scopes, audit }),
    auditTrail: services.auditTrail,
    overview,
  });

  // Gatehouse's own routes, answered by the outer app: none needs oidc-provider's request context.
  const ownRoutes: RouteGroupPart[] = [
    { middleware: adminApi, segments: [firstSegment(ADMIN_BASE)] },
    adminConsole.router,
    staticAssets,
    authenticatorRoutes(handlerServices),
    passkeyDeviceRoutes(handlerServices),
    accountRoutes(handlerServices),
    languageSwitchRoutes(handlerServices),
    // "Sign out everywhere" after a sign-out: one path inside the provider's /oauth2/v1/logout.
    { exact: signOutEverywhereRoutes(handlerServices) },
    // The development outbox's page exists only with the outbox (never in production).
    ...(mailer?.kind === 'outbox' ? [outboxRoutes(mailer as DevOutbox)] : []),
  ];
  const ownSegments = servedSegments(ownRoutes);
  if (ownSegments === undefined) throw new Error('an own route of the app does not name its first path segment');
  const ownPaths = servedPaths(ownRoutes);
  // The sign-in pages, entered only by their paths (http/route-group.ts); the OAuth endpoints skip them.
  const signInParts = [interactionRoutes(handlerServices), passkeySignInRoutes(handlerServices)];
  const signInRoutes = routeGroup(signInParts);
  const signInSegments = servedSegments(signInParts);
  if (signInSegments === undefined || [...signInSegments].some((segment) => ownSegments.has(segment))) {
    throw new Error('a first path segment is served both by a sign-in page and by an own route of the app');
  }

  const build = (jwks: SigningKeySet) => {
    signingKeys = jwks.keys;
    signingSince = jwks.signingSince;
    const provider = createProvider(config, {
      adapterFactory: services.oidcAdapter.adapterFactory as never,
      accounts: services.accounts,
      scopeGate: services.scopeGate,
      consents: services.consents,
      jwks: { keys: jwks.keys } as { keys: Record<string, unknown>[] },
      logger,
      audit,
      metrics: authMetrics,
      backchannelLogout,
      userSessions: services.userSessions,
      clock,
    });
    registerTokenExchange(provider, { config, tokens, opaque: opaqueSubjectTokens(provider), clients: services.clients, gate: services.scopeGate, audit, clock });
    // The shared plumbing (http/plumbing.ts), then what needs oidc-provider's context or wraps its answers.
    for (const middleware of requestPlumbing(config.issuer, provider, logger)) provider.use(middleware);
    provider.use(commitPendingWrites(services.oidcAdapter));
    provider.use(sessionUse(handlerServices));
    provider.use(unroutedAnswers);
    provider.use(oktaKeysAlias);
    provider.use(wireContract(provider, { renderInteraction: interactionRenderer(handlerServices) }));
    provider.use(discoveryScopes([...config.api.scopes, ...ADMIN_SCOPES]));
    provider.use(discoveryUnadvertised({ responseTypes: BUILT_IN_RESPONSE_TYPES, claims: ['sid'] }));
    provider.use(formPostWithoutInlineScript);
    // After RP-initiated logout: where the browser lands (its "Sign out everywhere" is an own route).
    provider.use(logoutLanding({ ...handlerServices, issuer: config.issuer, cookieKeys: config.cookieKeys, accessTokenTtl: config.accessTokenTtl }));
    provider.use(deviceGrantAnswers({ store: services.regulationStore, clock }));
    provider.use(userCodeRegulation({ regulator: services.regulator, audit }));
    provider.use(deviceSessionGuard(provider));
    provider.use(revocationFeed({ revocations: services.revocations, clients: services.clients, readers: resourceServerClients(config).map((server) => server.clientId), logger, streams: services.streams }));
    provider.use(jwtUserinfo({ tokens, accounts: services.accounts, dpop: userinfoDpop({ issuer: config.issuer, unique: (iss, jti, exp) => provider.ReplayDetection.unique(iss, jti, exp), clock }), opaque: opaqueAccessTokens(provider, services.accounts), realm: config.issuer }));
    provider.use(jwtIntrospection({ tokens, audit, resourceServers: resourceServerClients(config) }));
    provider.use(tokenResponse());
    provider.use(tokenExchangeAnswers({ audit }));
    provider.use(dpopRequiredAnswer(provider));
    // The sign-in pages resume the authorization inside their request: the provider's resume
    // endpoint runs next, in the same context (interactions/mfa/complete-login.ts).
    provider.use(signInRoutes);
    current = { provider, handler: provider.callback(), fingerprint: jwks.fingerprint };
  };

  // A failed maintenance (database hiccup) is logged and retried on the next check; serving goes on.
  const maintain = async (now: number) => {
    try {
      const { scheduled, retired, removed } = await maintainSigningKeys(services.keys, policy, now);
      if (scheduled) logger.info({ event: 'keys.scheduled', kid: scheduled.kid, activates_at: new Date(scheduled.activatesAt!).toISOString() }, 'signing key scheduled');
      for (const kid of retired) logger.info({ event: 'keys.retired', kid }, 'signing key retired');
      for (const kid of removed) logger.info({ event: 'keys.removed', kid }, 'signing key removed');
    } catch (error) {
      logger.error({ event: 'keys.maintenance_failed', err: error }, 'signing key maintenance failed');
    }
  };
  await maintain(clock());
  build(await loadSigningJwks(services.keys, clock()));

  const reloadKeys = async (): Promise<boolean> => {
    const now = clock();
    await maintain(now);
    const jwks = await loadSigningJwks(services.keys, now);
    if (jwks.fingerprint === current.fingerprint) return false;
    build(jwks);
    logger.info({ event: 'keys.reloaded', kid: jwks.signingKid ?? undefined }, 'signing keys reloaded');
    return true;
  };

  const app = new Koa() as AuthApp;
  app.proxy = config.trustProxy;
  // Each route group's declared patterns name its requests in the metrics (http/route-name.ts).
  const routeName = authRouteName([
    INTERACTION_ROUTE_NAMES,
    AUTH_STATIC_ASSETS.map((asset) => asset.path),
    AUTHENTICATOR_ROUTE_NAMES,
    Object.values(PASSKEY_PATHS),
    ACCOUNT_ROUTES,
    [LANGUAGE_PATH],
    [SIGN_OUT_EVERYWHERE_PATH],
    [OUTBOX_PATH],
    ADMIN_ROUTE_PATTERNS,
    adminConsole.paths,
  ]);
  // One recorder for the chain's metrics middleware and for the provider's requests that skip the chain (handler()).
  const metricsRecorder = httpMetricsRecorder(metrics);
  app.use(httpMetrics({ registry: metrics, route: routeName, recorder: metricsRecorder }));
  // One entry per dependency; /readyz names each (add a check here, nothing else changes).
  const readiness: ReadinessChecks = {
    database: () => services.ping(),
    signingKeys: async () => signingKeys.length > 0,
    // A schema behind the code (an instance started before `authctl db migrate`) is not ready.
    migrations: async () => (await services.pendingMigrations()).length === 0,
  };
  // Entered only by its own paths, like the other route groups (http/route-group.ts).
  const healthSegments = [AUTH_ROUTES.health, AUTH_ROUTES.ready].map(firstSegment);
  app.use(routeGroup([{ middleware: healthRoutes(readiness).routes() as unknown as Middleware, segments: healthSegments }]));
  const maintenance = periodicTasks(
    [
      // A failed check (database down) keeps the keys in use; the next period tries again.
      {
        name: 'signing-keys',
        everyMs: KEY_CHECK_INTERVAL_MS,
        run: () => reloadKeys().then(() => undefined, (error: unknown) => logger.warn({ err: error, event: 'keys.reload_failed' }, 'signing keys could not be re-read')),
      },
      // Failed back-channel logout deliveries whose retry delay has passed (sessions/backchannel-logout.ts).
      { name: 'backchannel-logout', everyMs: BACKCHANNEL_RETRY_TICK_MS, run: () => backchannelLogout.runDue() },
      {
        name: 'purge',
        everyMs: PURGE_INTERVAL_MS,
        run: (now) =>
          Promise.all([
            // Expired sessions' clients are told first; browser and last use go with the sessions (purged just before).
            services.userSessions
              .expiredSessions(EXPIRED_SESSIONS_PER_PURGE)
              .then((expired) => backchannelLogout.sessionsEnded(expired))
              .then(() => services.oidcAdapter.purgeExpired())
              .then(() => services.sessionMeta.purgeOrphans()),
            services.passwordResets.purgeExpired(),
            services.revocations.purgeExpired(),
            services.passkeyChallenges.purgeExpired(),
            services.regulationStore.purgeBefore(now - regulationRetentionMs(regulationRules(config))),
            services.auditEvents.purgeBefore(now - config.audit.retentionDays * DAY_MS),
          ]).catch((error: unknown) => logger.warn({ event: 'purge.failed', err: error }, 'purge failed')).then(() => undefined),
      },
    ],
    clock,
  );
  // Every request whose first path segment is not one of Gatehouse's own routes', nor one of their
  // exact paths, goes to the current provider, which has its own copy of the plumbing; the rest
  // is answered here.
  const isOwnPath = (path: string, first = firstSegment(path)) => ownSegments.has(first) || ownPaths.has(path.toLowerCase());
  app.use(async (ctx, next) => {
    if (isOwnPath(ctx.path)) return next();
    ctx.respond = false;
    await current.handler(ctx.req, ctx.res);
  });
  for (const middleware of requestPlumbing(config.issuer, app, logger)) app.use(middleware);
  // A path of an own route that no route answers gets the contract's 404 or 405 (http/unrouted.ts).
  app.use(unroutedAnswers);
  app.use(routeGroup(ownRoutes));
  // The server's listener: the provider's requests skip the chain above, which would only hand them on (http/provider-front.ts).
  const handler = () =>
    providerFront({
      chain: app.callback(),
      answeredHere: (path) => {
        const first = firstSegment(path);
        return healthSegments.includes(first) || isOwnPath(path, first);
      },
      provider: () => current.handler,
      recorder: metricsRecorder,
      route: routeName,
    });
  Object.defineProperty(app, 'handler', { value: handler });
  Object.defineProperty(app, 'services', { value: services });
  Object.defineProperty(app, 'reloadKeys', { value: reloadKeys });
  Object.defineProperty(app, 'maintenance', { value: maintenance });
  Object.defineProperty(app, 'metrics', { value: metrics });
  Object.defineProperty(app, 'mailer', { value: mailer });
  Object.defineProperty(app, 'backchannelLogout', { value: backchannelLogout });
  Object.defineProperty(app, 'flushAudit', { value: () => auditSink.flush() });
  Object.defineProperty(app, 'shutdown', {
    value: async () => {
      backchannelLogout.dropPending();
      await auditSink.flush();
    },
  });
  return app;
}
