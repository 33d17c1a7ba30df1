/**
 * Builds the resource server. It never listens: runServer does (server.ts), and tests call createApp.
 * Every absolute URL it writes starts with `config.publicUrl` (API_PUBLIC_URL), never with the
 * request's Host or X-Forwarded-Host; TRUST_PROXY only makes Koa read the client address from
 * X-Forwarded-For.
 * Middleware order: request metrics → request id → access log → security headers → problem details →
 * health, problem type documentation, OpenAPI → collection endpoints (see items/collection-endpoint.ts for the order of the checks there).
 * In front of all of it, outside Koa, the pre-routed path of authorized item reads (items/fast-read.ts):
 * it answers only what this chain would answer with a 200, the same way, and passes everything else on.
 * The two are composed in `handler()`, the server's request listener; Koa's own `callback()` is left
 * as Koa made it (the chain alone).
 */
import Koa from 'koa';
import type { Logger } from '@gatehouse/logging';
import type { Kysely } from 'kysely';
import { pendingMigrations, type Database } from '@gatehouse/db';
import { apiMigrations } from './storage/migrations.ts';
import { httpMetrics, httpMetricsRecorder, registerDatabasePoolMetrics, createMetricsRegistry, readBuildInfo, registerBuildInfo, type ReadinessChecks, type Registry } from '@gatehouse/metrics';
import { accessDeniedLog } from './auth/access-denied-log.ts';
import { createAuthenticator, type Authenticator, type RevocationCheck } from './auth/authenticator.ts';
import { createRevocationFeed, type RevocationFeed } from './auth/revocation-feed.ts';
import { createRevocationList } from './auth/revocation-list.ts';
import { createDiscovery } from './auth/discovery.ts';
import { createIntrospectionVerifier } from './auth/introspection-verifier.ts';
import { createJwksCache } from './auth/jwks-cache.ts';
import { createJwtVerifier } from './auth/jwt-verifier.ts';
import { createVerifiedTokenCache } from './auth/verified-token-cache.ts';
import { createDpopBinding } from './auth/dpop-binding.ts';
import { createDpopProofStore, type DpopProofStore } from './storage/dpop-proof-store.ts';
import type { ApiDefinition } from './collections/collection-config.ts';
import type { ApiConfig } from './config/config.ts';
import { errorHandler } from './errors/error-handler.ts';
import { healthRoutes } from './health/health-routes.ts';
import { requestId } from '@gatehouse/http';
import { apiAccessLog } from './http/access-log.ts';
import { apiSecurityHeaders } from './http/security-headers.ts';
import { apiRouteName } from './metrics/route-name.ts';
import { registerRevocationFeedLag } from './metrics/revocation-feed-lag.ts';
import type { ApiState } from './http/state.ts';
import { collectionEndpoint, type TokenValidation } from './items/collection-endpoint.ts';
import { fastItemRead, type RequestHandler } from './items/fast-read.ts';
import { openApiRoute } from './openapi/openapi-route.ts';
import { problemRoutes } from './problems/problem-routes.ts';
import { createItemStore } from './storage/item-store.ts';
import type { ApiSchema } from './storage/schema.ts';

export interface ApiDeps {
  /** An open, migrated database (see storage/open-api-database.ts). */
  readonly database: Database<ApiSchema>;
  /** The collection file's content. */
  readonly definition: ApiDefinition;
  /** Epoch milliseconds. */
  readonly clock: () => number;
  readonly fetch: typeof fetch;
  readonly logger: Logger;
  /** Benchmark baseline only: `off` skips token validation. Never set from the environment. */
  readonly tokenValidation?: TokenValidation;
  /**
   * Whether authorized item reads may take the pre-routed path (items/fast-read.ts); default true.
   * Tests turn it off to compare its answers with the ordinary path's. Never set from the environment.
   */
  readonly fastItemReads?: boolean;
  /**
   * Where the request and pool metrics are registered; server.ts passes the registry its metrics
   * listener serves. By default a fresh registry without process metrics.
   */
  readonly metrics?: Registry;
}

export interface ApiApp extends Koa<ApiState> {
  /** The server's request listener: the item-read path (when on) in front of Koa's chain. */
  handler(): RequestHandler;
  /** The token checker, exposed so the start-up path can warm it up. */
  readonly authenticator: Authenticator;
  /** The revocation feed subscriber (not started: the start-up path starts and stops it), or undefined when off. */
  readonly revocationFeed: RevocationFeed | undefined;
  /** The registry holding this app's metrics. */
  readonly metrics: Registry;
  /** The DPoP proofs seen, so the start-up path can purge the expired ones on a timer. */
  readonly dpopProofs: DpopProofStore;
}

function buildAuthenticator(config: ApiConfig, deps: ApiDeps): { authenticator: Authenticator; feed: RevocationFeed | undefined } {
  const discovery = createDiscovery({ issuer: config.issuer, fetch: deps.fetch, clock: deps.clock });
  const cache = createVerifiedTokenCache(config.tokenCacheSize);
  const introspection = () =>
    createIntrospectionVerifier({
      issuer: config.issuer,
      audience: config.audience,
      realm: config.realm,
      clientId: config.introspectionClient.clientId,
      clientSecret: config.introspectionClient.clientSecret,
      clockToleranceSeconds: config.clockTolerance,
      maxAgeMs: config.introspectionCacheMaxAge * 1000,
      clock: deps.clock,
      fetch: deps.fetch,
      discovery,
    });
  const verifier =
    config.tokenMode === 'jwt'
      ? createJwtVerifier({
          issuer: config.issuer,
          audience: config.audience,
          realm: config.realm,
          clockToleranceSeconds: config.clockTolerance,
          clock: deps.clock,
          jwks: createJwksCache({
            discovery,
            fetch: deps.fetch,
            clock: deps.clock,
            cooldownMs: config.jwksCooldown * 1000,
            maxAgeMs: config.jwksMaxAge * 1000,
            onKeys: (kids) => cache.dropKeysExcept(kids),
          }),
        })
      : introspection();

  let revocation: RevocationCheck | undefined;
  let feed: RevocationFeed | undefined;
  if (config.revocationFeed) {
    const list = createRevocationList(config.revocationFeed.listSize);
    feed = createRevocationFeed({
      url: config.revocationFeed.url,
      clientId: config.introspectionClient.clientId,
      clientSecret: config.introspectionClient.clientSecret,
      list,
      fetch: deps.fetch,
      clock: deps.clock,
      maxStalenessMs: config.revocationFeed.maxStaleness * 1000,
      logger: deps.logger,
    });
    revocation = {
      list,
      feed,
      // In introspection mode every answer is the server's already; in JWT mode a stale feed means asking it.
      ...(config.tokenMode === 'jwt' ? { fallback: introspection() } : {}),
      recheckMs: config.revocationFeed.maxStaleness * 1000,
    };
  }
  return { authenticator: createAuthenticator({ verifier, cache, clock: deps.clock, realm: config.realm, revocation }), feed };
}

export function createApp(config: ApiConfig, deps: ApiDeps): ApiApp {
  const app = new Koa<ApiState>({ proxy: config.trustProxy });
  const store = createItemStore(deps.database.db as Kysely<ApiSchema>, deps.database.engine === 'sqlite' ? deps.database : undefined);
  const { authenticator, feed } = buildAuthenticator(config, deps);
  const dpopProofs = createDpopProofStore(deps.database.db as Kysely<ApiSchema>);
  const dpop = createDpopBinding({ store: dpopProofs, clock: deps.clock, windowSeconds: config.dpopProofWindow, publicUrl: config.publicUrl, realm: config.realm });
  // Koa would print errors on stderr; ours are logged by the error handler.
  app.silent = true;
  const metrics = deps.metrics ?? createMetricsRegistry({ processMetrics: false });
  registerDatabasePoolMetrics(metrics, deps.database);
  registerBuildInfo(metrics, readBuildInfo('api', new URL('../package.json', import.meta.url)));
  if (feed) registerRevocationFeedLag(metrics, feed, deps.clock);

  const requestMetrics = httpMetricsRecorder(metrics);
  app.use(httpMetrics({ registry: metrics, route: apiRouteName, recorder: requestMetrics }));
  app.use(requestId);
  app.use(apiAccessLog(deps.logger, deps.clock));
  // Outside the error handler: its problem pages carry the headers too.
  app.use(apiSecurityHeaders);
  app.use(errorHandler(deps.logger, { publicUrl: config.publicUrl }));
  app.use(accessDeniedLog(deps.logger));
  // One entry per dependency; /readyz names each (add a check here, nothing else changes).
  const readiness: ReadinessChecks = {
    database: () => store.ping(),
    authorizationServer: () => authenticator.ready(),
    migrations: async () => (await pendingMigrations(deps.database.db as Kysely<unknown>, 'api', apiMigrations)).length === 0,
  };
  const health = healthRoutes(readiness);
  app.use(health.routes());
  app.use(problemRoutes({ publicUrl: config.publicUrl }).routes());
  const openapi = openApiRoute(deps.definition, { issuer: config.issuer, audience: config.audience, serverUrl: config.publicUrl });
  app.use(openapi.routes());
  app.use(
    collectionEndpoint({
      definition: deps.definition,
      store,
      authenticator,
      dpop,
      tokenValidation: deps.tokenValidation ?? 'on',
      realm: config.realm,
      bodyLimit: config.bodyLimit,
      clock: deps.clock,
      publicUrl: config.publicUrl,
    }),
  );
  const tokenValidation = deps.tokenValidation ?? 'on';
  const fastOptions = { definition: deps.definition, store, authenticator, realm: config.realm, logger: deps.logger, clock: deps.clock, metrics: requestMetrics, routeName: apiRouteName };
  const handler = (): RequestHandler => {
    const chain = app.callback() as RequestHandler;
    return (deps.fastItemReads ?? true) && tokenValidation === 'on' ? fastItemRead(fastOptions, chain) : chain;
  };
  return Object.assign(app, { handler, authenticator, revocationFeed: feed, metrics, dpopProofs });
}
