/**
 * The resource server as runServer starts it (packages/runtime run-server.ts): its configuration
 * and collection file, its database (waited for at start), the app and its request listener
 * (the item-read path in front of Koa, app.ts), and what runs beside the requests: the token
 * keys loaded early, the revocation feed, and the purge of expired DPoP proofs on a timer.
 */
import type { ServerModule } from '@gatehouse/runtime';
import { periodicTasks } from '@gatehouse/runtime';
import { createLogger } from '@gatehouse/logging';
import { openAppDatabase, redactUrl } from '@gatehouse/db';
import { createMetricsRegistry, metricsRequestListener } from '@gatehouse/metrics';
import { createApp } from './app.ts';
import { loadApiDefinition, type ApiDefinition } from './collections/collection-config.ts';
import { loadConfig, type ApiConfig } from './config/config.ts';
import { openApiDatabase } from './storage/open-api-database.ts';

interface ApiSettings {
  readonly config: ApiConfig;
  readonly definition: ApiDefinition;
}

export const server: ServerModule<ApiSettings> = {
  readConfig(env) {
    const config = loadConfig(env);
    return { config, definition: loadApiDefinition(config.collectionsFile) };
  },
  async start({ config, definition }) {
    // The shared logger: one redaction list (tokens, secrets, codes, cookies) like the other apps.
    const logger = createLogger({ name: 'api', level: config.logLevel });
    // Waited for at start, one line per attempt; a connection lost later is one warning (packages/db open-at-start.ts).
    const database = await openAppDatabase((events) => openApiDatabase(config.databaseUrl, { migrate: config.migrate, ...events }), {
      url: config.databaseUrl,
      timeoutMs: config.databaseConnectTimeout * 1000,
      setting: 'API_DATABASE_CONNECT_TIMEOUT',
      logger,
    });
    const metrics = createMetricsRegistry();
    const app = createApp(config, { database, definition, clock: Date.now, fetch: globalThis.fetch, logger, metrics });
    // Loads the keys early, so /readyz turns green without waiting for the first request.
    const warmUp = {
      start() {
        void app.authenticator.ready().then((ok) => {
          if (!ok) logger.warn({ event: 'authorization_server_unreachable', issuer: config.issuer }, 'authorization server not reachable yet; will retry');
        });
      },
      stop() {},
    };
    return {
      logger,
      handler: app.handler(),
      listen: { host: config.host, port: config.port, settings: 'API_HOST/API_PORT' },
      behindProxy: config.trustProxy,
      metrics: { ...config.metrics, settings: 'API_METRICS_HOST/API_METRICS_PORT', handler: metricsRequestListener(metrics) },
      listening: () =>
        logger.info(
          { event: 'api_started', url: `http://${config.host}:${config.port}`, database: redactUrl(config.databaseUrl), tokenMode: config.tokenMode, collections: [...definition.collections.keys()] },
          'API listening',
        ),
      // DPoP proofs are remembered only until their iat window ends (storage/dpop-proof-store.ts).
      periodic: periodicTasks(
        [
          {
            name: 'dpop_proofs.purge',
            everyMs: config.dpopProofWindow * 1000,
            run: (now) =>
              app.dpopProofs.purgeExpired(now).then(
                () => undefined,
                (error: unknown) => logger.warn({ err: error, event: 'dpop_proofs.purge_failed' }, 'could not purge expired DPoP proofs'),
              ),
          },
        ],
        Date.now,
      ),
      // Revocations reach this instance within seconds (auth/revocation-feed.ts).
      background: app.revocationFeed ? [warmUp, app.revocationFeed] : [warmUp],
      close: () => database.close(),
    };
  },
};
