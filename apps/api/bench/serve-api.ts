/**
 * The API as the benchmark runs it: its own process (as in production), on a random loopback
 * port, reporting the port to the parent over IPC. Token validation can be switched off here
 * and only here: the switch is a createApp dependency, not a setting.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../src/app.ts';
import { loadApiDefinition } from '../src/collections/collection-config.ts';
import { loadConfig } from '../src/config/config.ts';
import { openApiDatabase } from '../src/storage/open-api-database.ts';

const validation = process.argv[2] === 'off' ? 'off' : 'on';
const config = loadConfig({ ...process.env, API_PORT: '0', LOG_LEVEL: 'silent' });
const database = await openApiDatabase(config.databaseUrl);
const app = createApp(config, {
  database,
  definition: loadApiDefinition(config.collectionsFile),
  clock: Date.now,
  fetch: globalThis.fetch,
  logger: pino({ level: 'silent' }),
  tokenValidation: validation,
});
if (!(await app.authenticator.ready())) throw new Error('the API could not load the JWKS');
const handle = app.handler();
let served = 0;
const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  served++;
  void handle(req, res);
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
// The parent asks for this process's CPU time and request count around each round: CPU time
// per request does not depend on what else the machine is doing, throughput does.
process.on('message', (message) => {
  if (message === 'usage') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system, served });
  }
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => void database.close().then(() => process.exit(0)));
});
