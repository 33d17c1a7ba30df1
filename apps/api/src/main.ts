import { pino } from 'pino';
import { redactUrl } from '@gatehouse/db';
import { createApp } from './app.ts';
import { loadApiDefinition } from './collections/collection-config.ts';
import { loadConfig } from './config/config.ts';
import { openApiDatabase } from './storage/open-api-database.ts';

const config = loadConfig(process.env);
const logger = pino({ level: config.logLevel, base: { app: 'api' } });
const definition = loadApiDefinition(config.collectionsFile);
const database = await openApiDatabase(config.databaseUrl);
const app = createApp(config, { database, definition, clock: Date.now, fetch: globalThis.fetch, logger });

const server = app.listen(config.port, config.host, () => {
  logger.info(
    { event: 'api_started', url: `http://${config.host}:${config.port}`, database: redactUrl(config.databaseUrl), tokenMode: config.tokenMode, collections: [...definition.collections.keys()] },
    'API listening',
  );
});
// Load the keys early so /readyz turns green without waiting for the first request.
void app.authenticator.ready().then((ok) => {
  if (!ok) logger.warn({ event: 'authorization_server_unreachable', issuer: config.issuer }, 'authorization server not reachable yet; will retry');
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void database.close().then(() => process.exit(0)));
  });
}
