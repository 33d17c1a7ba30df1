import { createLogger } from '@gatehouse/logging';
import { DatabaseUnreachableError, MigrationError, openAtStart, redactUrl, SchemaBehindError } from '@gatehouse/db';
import { configErrorText } from '@gatehouse/config';
import { prepareServerProcess, releaseStartupMemoryLater, shutdownOnSignals } from '@gatehouse/runtime';
import { createMetricsRegistry, startMetricsServer } from '@gatehouse/metrics';
import { createApp } from './app.ts';
import { loadApiDefinition, type ApiDefinition } from './collections/collection-config.ts';
import { ConfigError, loadConfig, type ApiConfig } from './config/config.ts';
import { openApiDatabase } from './storage/open-api-database.ts';

// First: the thread pool's size and the nextTick shapes (packages/runtime prepare-server-process.ts).
prepareServerProcess();

let config: ApiConfig;
let definition: ApiDefinition;
try {
  config = loadConfig(process.env);
  definition = loadApiDefinition(config.collectionsFile);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  // One precise line, no stack: the operator has a setting to fix, not a bug to read.
  process.stderr.write(configErrorText('api', error));
  process.exit(1);
}
// The shared logger: one redaction list (tokens, secrets, codes, cookies) like the other apps.
const logger = createLogger({ name: 'api', level: config.logLevel });
// A database that is not there yet is waited for, one line per attempt (packages/db open-at-start.ts).
const database = await openAtStart(
  () =>
    openApiDatabase(config.databaseUrl, {
      migrate: config.migrate,
      onConnectionError: (error) => logger.warn({ err: error, event: 'database.connection_lost' }, 'database connection lost; the next query reconnects'),
    }),
  {
    url: config.databaseUrl,
    timeoutMs: config.databaseConnectTimeout * 1000,
    setting: 'API_DATABASE_CONNECT_TIMEOUT',
    warn: ({ event, ...fields }, message) => logger.warn({ event, ...fields }, message),
  },
).catch((error: unknown) => {
  if (!(error instanceof SchemaBehindError || error instanceof MigrationError || error instanceof DatabaseUnreachableError)) throw error;
  process.stderr.write(`api: ${error.message}\n`);
  process.exit(1);
});
const metrics = createMetricsRegistry();
const app = createApp(config, { database, definition, clock: Date.now, fetch: globalThis.fetch, logger, metrics });
// A listener of its own: /metrics is never reachable through the API's port.
const metricsServer = await startMetricsServer({ ...config.metrics, registry: metrics }).catch((error: unknown) => {
  process.stderr.write(`api: cannot serve metrics on ${config.metrics.host}:${config.metrics.port} (API_METRICS_HOST/API_METRICS_PORT): ${String(error)}\n`);
  process.exit(1);
});
logger.info({ event: 'metrics_started', url: `${metricsServer.url}/metrics` }, 'metrics listening');

const server = app.listen(config.port, config.host, () => {
  logger.info(
    { event: 'api_started', url: `http://${config.host}:${config.port}`, database: redactUrl(config.databaseUrl), tokenMode: config.tokenMode, collections: [...definition.collections.keys()] },
    'API listening',
  );
  // Start-up garbage and a young generation grown by loading: given back once (bench/README.md, "Memory").
  releaseStartupMemoryLater();
});
// Load the keys early so /readyz turns green without waiting for the first request.
void app.authenticator.ready().then((ok) => {
  if (!ok) logger.warn({ event: 'authorization_server_unreachable', issuer: config.issuer }, 'authorization server not reachable yet; will retry');
});

// Revocations reach this instance within seconds (auth/revocation-feed.ts).
app.revocationFeed?.start();

// DPoP proofs are remembered only until their iat window ends (storage/dpop-proof-store.ts).
const dpopPurge = setInterval(() => {
  app.dpopProofs.purgeExpired(Date.now()).catch((error: unknown) => logger.warn({ err: error, event: 'dpop_proofs.purge_failed' }, 'could not purge expired DPoP proofs'));
}, config.dpopProofWindow * 1000);
dpopPurge.unref();

shutdownOnSignals({
  servers: [server],
  logger,
  cleanup: async () => {
    app.revocationFeed?.stop();
    clearInterval(dpopPurge);
    await metricsServer.close();
    await database.close();
  },
});
