// First: oidc-provider's list formatters are created while the imports below are evaluated.
import { restoreListFormat } from './oidc/deferred-list-format.ts';
import { loadConfig, ConfigError } from './config/config.ts';
import { createLogger } from './logging/logger.ts';
import { openAuthDatabase } from './storage/open-auth-database.ts';
import { createAuthServices } from './services.ts';
import { CLIENT_CHANGES_CHANNEL } from './clients/client-change-tracker.ts';
import { createApp } from './app.ts';
import { SealedSecretsError } from './secrets/sealed-survey.ts';
import { seedDevelopment } from './dev/seed.ts';
import { DatabaseUnreachableError, MigrationError, openAtStart, redactUrl, SchemaBehindError } from '@gatehouse/db';
import { configErrorText } from '@gatehouse/config';
import { prepareServerProcess, releaseStartupMemoryLater, runOnTimer, shutdownOnSignals } from '@gatehouse/runtime';
import { createMetricsRegistry, startMetricsServer } from '@gatehouse/metrics';

async function main(): Promise<void> {
  restoreListFormat();
  // First: the thread pool's size and the nextTick shapes (packages/runtime prepare-server-process.ts).
  prepareServerProcess();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(configErrorText('auth', error));
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger({ level: config.logLevel });
  let database;
  try {
    // A database that is not there yet is waited for, one line per attempt (packages/db open-at-start.ts).
    database = await openAtStart(
      () =>
        openAuthDatabase(config.databaseUrl, {
          migrate: config.migrate,
          onConnectionError: (error) => logger.warn({ err: error, event: 'database.connection_lost' }, 'database connection lost; the next query reconnects'),
        }),
      {
        url: config.databaseUrl,
        timeoutMs: config.databaseConnectTimeout * 1000,
        setting: 'AUTH_DATABASE_CONNECT_TIMEOUT',
        warn: ({ event, ...fields }, message) => logger.warn({ event, ...fields }, message),
      },
    );
  } catch (error) {
    // One line, no stack: the operator has a step to run (or a database to bring up), not a bug to read.
    if (error instanceof SchemaBehindError || error instanceof MigrationError || error instanceof DatabaseUnreachableError) {
      process.stderr.write(`auth: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // PostgreSQL: client rows are reused until a change is heard (clients/client-change-tracker.ts).
  const clientChangeListener = database.engine === 'postgres' ? database.listen(CLIENT_CHANGES_CHANNEL, {
    onLost: (error) => logger.warn({ err: error, event: 'clients.change_listener_lost' }, 'stopped hearing client changes; reading every client until listening again'),
    onListening: () => logger.info({ event: 'clients.change_listener_back' }, 'hearing client changes again'),
  }) : undefined;
  const services = createAuthServices(config, database, Date.now, clientChangeListener ? { clientChangeListener } : {});
  const metrics = createMetricsRegistry();
  const app = await createApp(config, { database, logger, services, metrics }).catch((error: unknown) => {
    // One line, no stack: a key is missing from AUTH_ENCRYPTION_KEYS, and the line says which and what to do.
    if (error instanceof SealedSecretsError) {
      process.stderr.write(`auth: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  });
  // A listener of its own: /metrics is never reachable through the issuer's port.
  const metricsServer = await startMetricsServer({ ...config.metrics, registry: metrics }).catch((error: unknown) => {
    process.stderr.write(`auth: cannot serve metrics on ${config.metrics.host}:${config.metrics.port} (AUTH_METRICS_HOST/AUTH_METRICS_PORT): ${String(error)}\n`);
    process.exit(1);
  });
  logger.info({ event: 'metrics_started', url: `${metricsServer.url}/metrics` }, 'metrics listening');
  const seeded = config.devSeed ? await seedDevelopment(config, services) : undefined;
  const server = app.listen(config.port, config.host, () => {
    logger.info({ issuer: config.issuer, database: redactUrl(config.databaseUrl) }, `authorization server listening on http://${config.host}:${config.port}`);
    if (seeded) process.stdout.write(seeded.banner);
    // Start-up garbage and a young generation grown by loading: given back once (bench/README.md, "Memory").
    releaseStartupMemoryLater();
  });
  // Key checks and purges run on a timer of their own, never on a request (packages/runtime periodic-tasks.ts).
  const maintenance = runOnTimer(app.maintenance);
  shutdownOnSignals({
    servers: [server],
    logger,
    closeStreams: () => services.streams.closeAll(),
    cleanup: async () => {
      await maintenance.stop();
      await metricsServer.close();
      await app.flushAudit();
      await database.close();
    },
  });
}

await main();
