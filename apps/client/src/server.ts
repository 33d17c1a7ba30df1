/**
 * One relying party (app-one or app-two) as runServer starts it (packages/runtime
 * run-server.ts): its configuration, its database (waited for at start), the app, and its
 * purges on a timer. Its failure lines begin with its client id once the configuration is read.
 */
import type { ServerModule } from '@gatehouse/runtime';
import type { DestinationStream } from '@gatehouse/logging';
import { openAppDatabase, redactUrl } from '@gatehouse/db';
import { createMetricsRegistry, metricsRequestListener } from '@gatehouse/metrics';
import { loadConfig, type ClientConfig } from './config/config.ts';
import { createLogger } from './logging/logger.ts';
import { openClientDatabase } from './storage/open-client-database.ts';
import { createApp } from './app.ts';

/** One relying party; `logTo` is where its log lines go (default stdout; dev-apps.ts labels each app's). */
export function clientServer(options: { logTo?: DestinationStream } = {}): ServerModule<ClientConfig> {
  return {
    readConfig: (env) => loadConfig(env),
    label: (config) => config.clientId,
    async start(config) {
      const logger = createLogger({ level: config.logLevel, name: config.clientId, ...(options.logTo ? { destination: options.logTo } : {}) });
      // Waited for at start, one line per attempt; a connection lost later is one warning (packages/db open-at-start.ts).
      const database = await openAppDatabase((events) => openClientDatabase(config.databaseUrl, { migrate: config.migrate, ...events }), {
        url: config.databaseUrl,
        timeoutMs: config.databaseConnectTimeout * 1000,
        setting: 'CLIENT_DATABASE_CONNECT_TIMEOUT',
        logger,
      });
      const metrics = createMetricsRegistry();
      const app = createApp(config, { database, logger, clock: Date.now, fetch: globalThis.fetch, metrics });
      return {
        logger,
        handler: app.callback(),
        listen: { host: config.host, port: config.port, settings: 'CLIENT_HOST/CLIENT_PORT' },
        behindProxy: config.trustProxy,
        metrics: { ...config.metrics, settings: 'CLIENT_METRICS_HOST/CLIENT_METRICS_PORT', handler: metricsRequestListener(metrics) },
        listening: () =>
          logger.info(
            { event: 'client_started', client_id: config.clientId, url: config.publicUrl, issuer: config.issuer, api: config.apiUrl, database: redactUrl(config.databaseUrl) },
            `${config.clientId} listening on http://${config.host}:${config.port} (open ${config.publicUrl}/)`,
          ),
        // Purges, never on a request (packages/runtime periodic-tasks.ts).
        periodic: app.maintenance,
        close: () => database.close(),
      };
    },
  };
}

export const server: ServerModule<ClientConfig> = clientServer();
