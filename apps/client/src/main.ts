import { DatabaseUnreachableError, MigrationError, openAtStart, redactUrl, SchemaBehindError } from '@gatehouse/db';
import { configErrorText } from '@gatehouse/config';
import { prepareServerProcess, releaseStartupMemoryLater, runOnTimer, shutdownOnSignals } from '@gatehouse/runtime';
import { createMetricsRegistry, startMetricsServer } from '@gatehouse/metrics';
import { ConfigError, loadConfig } from './config/config.ts';
import { createLogger } from './logging/logger.ts';
import { openClientDatabase } from './storage/open-client-database.ts';
import { createApp } from './app.ts';

async function main(): Promise<void> {
  // First: the thread pool's size and the nextTick shapes (packages/runtime prepare-server-process.ts).
  prepareServerProcess();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(configErrorText('client', error));
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel, name: config.clientId });
  let database;
  try {
    // A database that is not there yet is waited for, one line per attempt (packages/db open-at-start.ts).
    database = await openAtStart(
      () =>
        openClientDatabase(config.databaseUrl, {
          migrate: config.migrate,
          onConnectionError: (error) => logger.warn({ err: error, event: 'database.connection_lost' }, 'database connection lost; the next query reconnects'),
        }),
      {
        url: config.databaseUrl,
        timeoutMs: config.databaseConnectTimeout * 1000,
        setting: 'CLIENT_DATABASE_CONNECT_TIMEOUT',
        warn: ({ event, ...fields }, message) => logger.warn({ event, ...fields }, message),
      },
    );
  } catch (error) {
    if (error instanceof SchemaBehindError || error instanceof MigrationError || error instanceof DatabaseUnreachableError) {
      process.stderr.write(`${config.clientId}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const metrics = createMetricsRegistry();
  const app = createApp(config, { database, logger, clock: Date.now, fetch: globalThis.fetch, metrics });
  // A listener of its own: /metrics is never reachable through the app's port.
  const metricsServer = await startMetricsServer({ ...config.metrics, registry: metrics }).catch((error: unknown) => {
    process.stderr.write(`client: cannot serve metrics on ${config.metrics.host}:${config.metrics.port} (CLIENT_METRICS_HOST/CLIENT_METRICS_PORT): ${String(error)}\n`);
    process.exit(1);
  });
  logger.info({ event: 'metrics_started', client_id: config.clientId, url: `${metricsServer.url}/metrics` }, 'metrics listening');
  const server = app.listen(config.port, config.host, () => {
    logger.info(
      { event: 'client_started', client_id: config.clientId, url: config.publicUrl, issuer: config.issuer, api: config.apiUrl, database: redactUrl(config.databaseUrl) },
      `${config.clientId} listening on http://${config.host}:${config.port} (open ${config.publicUrl}/)`,
    );
    // Start-up garbage and a young generation grown by loading: given back once (bench/README.md, "Memory").
    releaseStartupMemoryLater();
  });
  // Purges run on a timer of their own, never on a request (packages/runtime periodic-tasks.ts).
  const maintenance = runOnTimer(app.maintenance);
  shutdownOnSignals({
    servers: [server],
    logger,
    cleanup: async () => {
      await maintenance.stop();
      await metricsServer.close();
      await database.close();
    },
  });
}

await main();
