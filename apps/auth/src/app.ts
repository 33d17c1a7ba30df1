/**
 * The authorization server as a Koa app (never listening; main.ts does that).
 * The oidc-provider instance is rebuilt when the signing-key set in the database changes
 * (`authctl keys rotate`, possibly from another process or instance): the check runs at most
 * every KEY_CHECK_INTERVAL_MS, so a rotation takes effect within seconds without a restart.
 * Expired oidc rows and old regulation records are purged on the same lazy schedule.
 * Outer middleware order: request metrics → /healthz, /readyz → the current provider.
 */
import Koa from 'koa';
import type { Provider } from 'oidc-provider';
import type { Database } from '@gatehouse/db';
import { createMetricsRegistry, httpMetrics, registerDatabasePoolMetrics, type ReadinessChecks, type Registry } from '@gatehouse/metrics';
import { sql } from 'kysely';
import type { AuthConfig } from './config/config.ts';
import type { AuthSchema } from './storage/schema.ts';
import type { Logger } from './logging/logger.ts';
import { createLogger } from './logging/logger.ts';
import { createAuthServices, type AuthServices } from './services.ts';
import { ensureSigningKey, keySetFingerprint, loadSigningJwks } from './keys/signing-keys.ts';
import { createProvider } from './oidc/provider.ts';
import { wireContract } from './oidc/wire-contract.ts';
import { discoveryScopes } from './oidc/discovery-scopes.ts';
import { requestContext } from './http/request-context.ts';
import { securityHeaders } from './http/security-headers.ts';
import { interactionRoutes, renderLogin } from './interactions/routes.ts';
import type { InteractionDeps } from './interactions/deps.ts';
import { authenticatorRoutes } from './authenticator/routes.ts';
import { createJwtAccessTokens } from './oidc/jwt-access-tokens.ts';
import { jwtIntrospection } from './oidc/jwt-introspection.ts';
import { jwtUserinfo } from './oidc/jwt-userinfo.ts';
import { tokenResponse } from './oidc/token-response.ts';
import { userinfoAudience } from './oidc/resource-server.ts';
import { revocationFeed } from './revocation/revocation-feed.ts';
import type { JWK } from 'jose';
import { createAuthMetrics } from './metrics/auth-metrics.ts';
import { authRouteName } from './metrics/route-name.ts';
import { healthRoutes } from './health/health-routes.ts';

export const KEY_CHECK_INTERVAL_MS = 5_000;
const PURGE_INTERVAL_MS = 60_000;

export interface AppDeps {
  database: Database<AuthSchema>;
  clock?: () => number;
  logger?: Logger;
  services?: AuthServices;
  /**
   * Where request, pool and login metrics are registered; main.ts passes the registry its
   * metrics listener serves. By default a fresh registry without process metrics.
   */
  metrics?: Registry;
}

export interface AuthApp extends Koa {
  /** The services the app runs on (stores, regulator); used by main.ts and tests. */
  readonly services: AuthServices;
  /** Re-reads the signing keys now and rebuilds the provider if they changed. */
  reloadKeys(): Promise<boolean>;
  /** The registry holding this app's metrics. */
  readonly metrics: Registry;
}

export async function createApp(config: AuthConfig, deps: AppDeps): Promise<AuthApp> {
  const clock = deps.clock ?? Date.now;
  const logger = deps.logger ?? createLogger({ level: config.logLevel });
  const services = deps.services ?? createAuthServices(config, deps.database, clock);
  await ensureSigningKey(services.keys, clock());
  const metrics = deps.metrics ?? createMetricsRegistry({ processMetrics: false });
  const authMetrics = createAuthMetrics(metrics);
  registerDatabasePoolMetrics(metrics, deps.database);

  let current: { provider: Provider; handler: ReturnType<Provider['callback']>; fingerprint: string };
  const interactionDeps: InteractionDeps = {
    config,
    provider: () => current.provider,
    accounts: services.accounts,
    regulator: services.regulator,
    totp: services.totp,
    box: services.box,
    logger,
    clock,
    devices: services.devices,
    enrollments: services.enrollments,
    pushes: services.pushes,
    pushHub: services.pushHub,
    recoveryCodes: services.recoveryCodes,
    metrics: authMetrics,
  };

  let signingKeys: readonly JWK[] = [];
  const tokens = createJwtAccessTokens({
    issuer: config.issuer,
    keys: () => signingKeys,
    clients: services.clients,
    accounts: services.accounts,
    revocations: services.revocations,
    clock,
  });

  const build = async () => {
    const jwks = await loadSigningJwks(services.keys, clock());
    signingKeys = jwks.keys;
    const provider = createProvider(config, {
      adapterFactory: services.oidcAdapter.adapterFactory as never,
      accounts: services.accounts,
      jwks: jwks as { keys: Record<string, unknown>[] },
      logger,
      metrics: authMetrics,
    });
    provider.use(requestContext(logger));
    provider.use(securityHeaders);
    provider.use(wireContract(provider, { renderLogin }));
    provider.use(discoveryScopes(config.api.scopes));
    provider.use(revocationFeed({ revocations: services.revocations, clients: services.clients, logger }));
    provider.use(jwtUserinfo({ tokens, accounts: services.accounts, audience: userinfoAudience(config), realm: config.issuer }));
    provider.use(jwtIntrospection({ tokens, logger }));
    provider.use(tokenResponse({ clients: services.clients }));
    const routes = interactionRoutes(interactionDeps);
    provider.use(routes.routes());
    provider.use(routes.allowedMethods());
    const authenticator = authenticatorRoutes(interactionDeps);
    provider.use(authenticator.routes());
    provider.use(authenticator.allowedMethods());
    current = { provider, handler: provider.callback(), fingerprint: keySetFingerprint(jwks.keys) };
  };
  await build();

  let keysCheckedAt = clock();
  let purgedAt = clock();
  const reloadKeys = async (): Promise<boolean> => {
    keysCheckedAt = clock();
    const jwks = await loadSigningJwks(services.keys, clock());
    if (keySetFingerprint(jwks.keys) === current.fingerprint) return false;
    await build();
    logger.info({ event: 'keys.reloaded' }, 'signing keys reloaded');
    return true;
  };

  const app = new Koa() as AuthApp;
  app.proxy = config.trustProxy;
  app.use(httpMetrics({ registry: metrics, route: authRouteName }));
  // One entry per dependency; /readyz names each (add a check here, nothing else changes).
  const readiness: ReadinessChecks = {
    database: () => sql`select 1`.execute(services.db),
    signingKeys: async () => signingKeys.length > 0,
  };
  app.use(healthRoutes(readiness).routes());
  app.use(async (ctx) => {
    const now = clock();
    if (now - keysCheckedAt >= KEY_CHECK_INTERVAL_MS) await reloadKeys();
    if (now - purgedAt >= PURGE_INTERVAL_MS) {
      purgedAt = now;
      void Promise.all([
        services.oidcAdapter.purgeExpired(),
        services.revocations.purgeExpired(),
        services.regulationStore.purgeBefore(now - (config.regulation.findTime + config.regulation.banTime) * 1000),
      ]).catch((error: unknown) => logger.warn({ err: error }, 'purge failed'));
    }
    ctx.respond = false;
    await current.handler(ctx.req, ctx.res);
  });
  Object.defineProperty(app, 'services', { value: services });
  Object.defineProperty(app, 'reloadKeys', { value: reloadKeys });
  Object.defineProperty(app, 'metrics', { value: metrics });
  return app;
}
