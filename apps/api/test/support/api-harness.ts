import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type { Database, Engine } from '@gatehouse/db';
import type { Registry } from '@gatehouse/metrics';
import { createPostgresOutage, createTestDatabase, type PostgresOutage, type TestDatabase } from '@gatehouse/db/testing';
import { createApp, type ApiApp } from '../../src/app.ts';
import { loadApiDefinition, parseApiDefinition, type ApiDefinition } from '../../src/collections/collection-config.ts';
import { loadConfig, type ApiConfig } from '../../src/config/config.ts';
import { openApiDatabase } from '../../src/storage/open-api-database.ts';
import type { ApiSchema } from '../../src/storage/schema.ts';
import type { TokenValidation } from '../../src/items/collection-endpoint.ts';

/** A running API on 127.0.0.1 with a throw-away database and a clock the test moves. */
export interface ApiHarness {
  readonly url: string;
  readonly app: ApiApp;
  readonly config: ApiConfig;
  readonly database: Database<ApiSchema>;
  /** The API's clock; tests move it instead of sleeping. */
  now: number;
  /** With `outage: true` (PostgreSQL): cut and restore the database connection. */
  readonly outage?: PostgresOutage;
  request(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  close(): Promise<void>;
}

export async function startApi(options: {
  issuer: string;
  env?: Record<string, string>;
  engine?: Engine;
  definition?: unknown;
  tokenValidation?: TokenValidation;
  now?: number;
  outage?: boolean;
  /** The registry the app records into (default: the app's own, without process metrics). */
  metrics?: Registry;
  /** The app's logger (default: silent). */
  logger?: Logger;
  /** Whether item reads may take the pre-routed path (default true, as in production). */
  fastItemReads?: boolean;
  /** Another harness's database: a second instance of the API on it (dropped by its owner, not by this harness). */
  shareDatabaseOf?: ApiHarness;
}): Promise<ApiHarness> {
  const shared = options.shareDatabaseOf;
  const target: TestDatabase = shared
    ? { url: shared.config.databaseUrl, engine: shared.database.engine, drop: async () => undefined }
    : await createTestDatabase(options.outage ? 'postgres' : (options.engine ?? 'sqlite'));
  const outage = options.outage ? await createPostgresOutage(target.url) : undefined;
  // The revocation feed is off unless a test turns it on (it needs the API's real client credentials).
  // The server listens first, so the API's public URL (API_PUBLIC_URL) can be its real address.
  let handle: ReturnType<ApiApp['handler']> | undefined;
  const server: Server = createServer((req, res) => void handle!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let config: ApiConfig;
  try {
    config = loadConfig({
      AUTH_ISSUER: options.issuer,
      API_PUBLIC_URL: url,
      API_DATABASE_URL: outage?.url ?? target.url,
      LOG_LEVEL: 'silent',
      API_REVOCATION_FEED: 'false',
      ...options.env,
    });
  } catch (error) {
    server.close();
    throw error;
  }
  const definition: ApiDefinition = options.definition === undefined ? loadApiDefinition(config.collectionsFile) : parseApiDefinition(options.definition);
  const database = await openApiDatabase(config.databaseUrl, { onConnectionError: () => undefined, connectTimeoutMs: 2_000 });
  const harness = { now: options.now ?? Date.now() } as ApiHarness;
  const app = createApp(config, {
    database,
    definition,
    clock: () => harness.now,
    fetch: globalThis.fetch,
    logger: options.logger ?? pino({ level: 'silent' }),
    tokenValidation: options.tokenValidation,
    metrics: options.metrics,
    ...(options.fastItemReads === undefined ? {} : { fastItemReads: options.fastItemReads }),
  });
  handle = app.handler();
  return Object.assign(harness, {
    url,
    app,
    config,
    database,
    ...(outage ? { outage } : {}),
    request(path: string, init: RequestInit & { token?: string } = {}) {
      const { token, headers, ...rest } = init;
      const h = new Headers(headers);
      if (token !== undefined) h.set('authorization', `Bearer ${token}`);
      return fetch(`${url}${path}`, { ...rest, headers: h, redirect: 'manual' });
    },
    async close() {
      app.revocationFeed?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await database.close().catch(() => undefined);
      await outage?.close();
      await target.drop();
    },
  });
}
