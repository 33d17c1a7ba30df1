/**
 * The authorization server as runServer starts it (packages/runtime run-server.ts): its
 * configuration, its database (waited for at start), its services and app, the development
 * seed, and what runs beside the requests (maintenance on a timer, event streams; at shutdown
 * the back-channel retries still waiting are audited as dropped and the audit trail flushed).
 * main.ts names this module and the preload step.
 */
import type { ServerModule } from '@gatehouse/runtime';
import { openAppDatabase, redactUrl } from '@gatehouse/db';
import { createMetricsRegistry, metricsRequestListener } from '@gatehouse/metrics';
import { loadConfig, type AuthConfig } from './config/config.ts';
import { createLogger } from './logging/logger.ts';
import { openAuthDatabase } from './storage/open-auth-database.ts';
import { createAuthServices } from './services.ts';
import { CLIENT_CHANGES_CHANNEL } from './clients/client-change-tracker.ts';
import { createApp } from './app.ts';
import type { SealedSecretsError } from './secrets/sealed-survey.ts';
import { seedDevelopment } from './dev/seed.ts';
import { createTestClock, withTestClock } from './dev/test-clock.ts';

export const server: ServerModule<AuthConfig> = {
  readConfig: loadConfig,
  // A key missing from AUTH_ENCRYPTION_KEYS: the line says which and what to do.
  oneLineFailures: ['sealed_unreadable'] satisfies SealedSecretsError['code'][],
  async start(config) {
    const logger = createLogger({ level: config.logLevel });
    // Waited for at start, one line per attempt; a connection lost later is one warning (packages/db open-at-start.ts).
    const database = await openAppDatabase((events) => openAuthDatabase(config.databaseUrl, { migrate: config.migrate, ...events }), {
      url: config.databaseUrl,
      timeoutMs: config.databaseConnectTimeout * 1000,
      setting: 'AUTH_DATABASE_CONNECT_TIMEOUT',
      logger,
    });
    // PostgreSQL: client rows are reused until a change is heard (clients/client-change-tracker.ts).
    const clientChangeListener =
      database.engine === 'postgres'
        ? database.listen(CLIENT_CHANGES_CHANNEL, {
            onLost: (error) => logger.warn({ err: error, event: 'clients.change_listener_lost' }, 'stopped hearing client changes; reading every client until listening again'),
            onListening: () => logger.info({ event: 'clients.change_listener_back' }, 'hearing client changes again'),
          })
        : undefined;
    // Whole-stack tests move the time of a server they started as a process (dev/test-clock.ts).
    const testClock = config.testClock ? createTestClock() : undefined;
    const clock = testClock ? testClock.now : Date.now;
    const services = createAuthServices(config, database, clock, clientChangeListener ? { clientChangeListener } : {});
    const metrics = createMetricsRegistry();
    // The development seed starts before the app is built: its slowest part, the demo user's
    // argon2id hash, runs in the thread pool while the app is built on the event loop
    // (bench/README.md, "Start-up"). A failure of either stops the start; the app's is reported first.
    const seeding = config.devSeed ? seedDevelopment(config, services) : undefined;
    seeding?.catch(() => undefined);
    const app = await createApp(config, { database, logger, services, metrics, clock });
    const seeded = await seeding;
    return {
      logger,
      handler: testClock ? withTestClock(testClock, app.handler()) : app.handler(),
      listen: { host: config.host, port: config.port, settings: 'AUTH_HOST/AUTH_PORT' },
      metrics: { ...config.metrics, settings: 'AUTH_METRICS_HOST/AUTH_METRICS_PORT', handler: metricsRequestListener(metrics) },
      listening: () => {
        logger.info({ issuer: config.issuer, database: redactUrl(config.databaseUrl) }, `authorization server listening on http://${config.host}:${config.port}`);
        if (seeded) process.stdout.write(seeded.banner);
      },
      // Key checks and purges, never on a request (packages/runtime periodic-tasks.ts).
      periodic: app.maintenance,
      closeStreams: () => services.streams.closeAll(),
      behindProxy: config.trustProxy,
      close: async () => {
        // Back-channel retries still waiting are audited as dropped, then the audit trail is stored.
        await app.shutdown();
        await database.close();
      },
    };
  },
};
