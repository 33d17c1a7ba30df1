/**
 * The relying party as a Koa app (never listening: runServer does, server.ts).
 * Middleware order: request metrics → request id → access log → security headers → error handler
 * (error page) → health → back-channel logout (server to server: no session; its own form body)
 * → session → form body → routes. Expired sessions and pending logins are
 * purged by `maintenance`, which the start-up path runs on a timer (server.ts; never on a request).
 */
import Koa from 'koa';
import { periodicTasks, type PeriodicTasks } from '@gatehouse/runtime';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { CLIENT_ROUTES } from '@gatehouse/contracts';
import { pendingMigrations, type Database } from '@gatehouse/db';
import { clientMigrations } from './storage/migrations.ts';
import { createMetricsRegistry, httpMetrics, readBuildInfo, registerBuildInfo, registerDatabasePoolMetrics, type ReadinessChecks, type Registry } from '@gatehouse/metrics';
import { sql, type Kysely } from 'kysely';
import type { ClientConfig } from './config/config.ts';
import type { ClientSchema } from './storage/schema.ts';
import type { Logger } from './logging/logger.ts';
import { createLogger } from './logging/logger.ts';
import { accessLog, cookieSigner, requestId } from '@gatehouse/http';
import { errorHandler } from './http/request-context.ts';
import { clientSecurityHeaders } from './http/security-headers.ts';
import type { ClientState } from './http/state.ts';
import { createSessionStore, type SessionStore } from './sessions/session-store.ts';
import { createLoginStore, type LoginStore } from './sessions/login-store.ts';
import { sessionMiddleware } from './sessions/session-middleware.ts';
import { createAccessTokens } from './sessions/access-token.ts';
import { createRelyingParty, type RelyingParty } from './oidc/relying-party.ts';
import { createLoginFlow } from './oidc/login-flow.ts';
import { createApiClient } from './api-client/api-client.ts';
import type { RouteDeps } from './routes/deps.ts';
import { createLanding } from './routes/landing.ts';
import { createCallback } from './routes/callback.ts';
import { createLogout } from './routes/logout.ts';
import { createBackchannelLogoutRoute } from './routes/backchannel-logout.ts';
import { createLogoutTokenValidator } from './oidc/logout-token.ts';
import { createLogoutTokenStore } from './sessions/logout-token-store.ts';
import { createItemActions } from './routes/items.ts';
import { clientStaticAssets } from './views/static-assets.ts';
import { switchLanguage } from './i18n/language-switch.ts';
import { LANGUAGE_PATH } from './i18n/locales.ts';
import { healthRoutes } from './health/health-routes.ts';
import { clientRouteName } from './metrics/route-name.ts';

const PURGE_INTERVAL_MS = 60_000;

export interface AppDeps {
  database: Database<ClientSchema>;
  clock?: () => number;
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
  /**
   * Where request and pool metrics are registered; server.ts passes the registry its metrics
   * listener serves. By default a fresh registry without process metrics.
   */
  metrics?: Registry;
}

export interface ClientApp extends Koa<ClientState> {
  /** Stores the app runs on; used by tests. */
  readonly stores: { sessions: SessionStore; logins: LoginStore };
  readonly relyingParty: RelyingParty;
  /** The registry holding this app's metrics. */
  readonly metrics: Registry;
  /** The periodic purge: the start-up path runs it on a timer (runOnTimer) and stops it at shutdown; tests call `runDue()`. */
  readonly maintenance: PeriodicTasks;
}

export function createApp(config: ClientConfig, deps: AppDeps): ClientApp {
  const clock = deps.clock ?? Date.now;
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const logger = deps.logger ?? createLogger({ level: config.logLevel, name: config.clientId });
  const db = deps.database.db;

  const sessions = createSessionStore(db, config.clientId, clock);
  const logins = createLoginStore(db, config.clientId, clock);
  const relyingParty = createRelyingParty(config, { fetch: fetchImpl, clock });
  const logoutTokens = createLogoutTokenStore(db, config.clientId, clock);
  const tokens = createAccessTokens({ relyingParty, store: sessions, clock, refreshSkew: config.refreshSkew, logger });
  const api = createApiClient({ apiUrl: config.apiUrl, collection: config.collection, tokens, fetch: fetchImpl });
  const startLogin = createLoginFlow({ config, relyingParty, logins, logger });
  const routeDeps: RouteDeps = { config, relyingParty, logins, startLogin, api, clock, logger };

  const logout = createLogout(routeDeps);
  const items = createItemActions(routeDeps);
  const router = new Router();
  router.get(CLIENT_ROUTES.landing, createLanding(routeDeps));
  router.get(CLIENT_ROUTES.callback, createCallback(routeDeps));
  router.get(CLIENT_ROUTES.logout, logout.confirm);
  router.post(CLIENT_ROUTES.logout, logout.logout);
  router.get(CLIENT_ROUTES.signedOut, logout.signedOut);
  router.post('/items', items.add);
  router.post('/items/:id/delete', items.remove);
  router.post(LANGUAGE_PATH, switchLanguage);
  router.use(clientStaticAssets().routes());

  const app = new Koa<ClientState>() as ClientApp;
  app.proxy = config.trustProxy;
  app.keys = cookieSigner(config.cookieKeys);
  const metrics = deps.metrics ?? createMetricsRegistry({ processMetrics: false });
  registerDatabasePoolMetrics(metrics, deps.database);
  registerBuildInfo(metrics, readBuildInfo(config.clientId, new URL('../package.json', import.meta.url)));
  // One entry per dependency; /readyz names each (add a check here, nothing else changes).
  const readiness: ReadinessChecks = {
    database: () => sql`select 1`.execute(db),
    authorizationServer: () => relyingParty.ready(),
    migrations: async () => (await pendingMigrations(db as Kysely<unknown>, 'client', clientMigrations)).length === 0,
  };
  const health = healthRoutes(readiness);
  app.use(httpMetrics({ registry: metrics, route: clientRouteName }));
  app.use(requestId);
  app.use(accessLog(logger));
  // Outside the error handler: its error pages carry the headers too.
  app.use(clientSecurityHeaders(new URL(config.issuer).origin));
  app.use(errorHandler(logger, config.clientId));
  // Probes need no session, so they answer before the session middleware touches the database.
  app.use(health.routes());
  const backchannel = new Router();
  backchannel.post(
    CLIENT_ROUTES.backchannelLogout,
    bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' }),
    createBackchannelLogoutRoute({
      validate: createLogoutTokenValidator({ clientId: config.clientId, serverKeys: () => relyingParty.serverKeys(), replays: logoutTokens, fetch: fetchImpl, clock }),
      sessions,
      logger,
    }),
  );
  app.use(backchannel.routes());
  app.use(backchannel.allowedMethods());
  app.use(sessionMiddleware(app, config, sessions, clock));
  app.use(bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' }));
  app.use(router.routes());
  // 405 with Allow, also for methods no route has (the error handler writes the page).
  app.use(router.allowedMethods());
  Object.defineProperty(app, 'stores', { value: { sessions, logins } });
  Object.defineProperty(app, 'relyingParty', { value: relyingParty });
  Object.defineProperty(app, 'metrics', { value: metrics });
  const purge = () =>
    Promise.all([sessions.purgeExpired(), logins.purgeExpired(), logoutTokens.purgeExpired()]).then(
      () => undefined,
      (error: unknown) => logger.warn({ event: 'purge.failed', err: error }, 'purge failed'),
    );
  Object.defineProperty(app, 'maintenance', { value: periodicTasks([{ name: 'purge', everyMs: PURGE_INTERVAL_MS, run: purge }], clock) });
  return app;
}
