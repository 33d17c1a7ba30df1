/**
 * A relying party on a random loopback port, registered at a real test authorization server,
 * on a throw-away database, with a clock the test moves and network access limited to loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { Database, Engine } from '@gatehouse/db';
import type { Registry } from '@gatehouse/metrics';
import { createPostgresOutage, createTestDatabase, type PostgresOutage, type TestDatabase } from '@gatehouse/db/testing';
import { CookieJar, form, request, type HttpResponse, type TestAuthServer, type TestUser } from '@gatehouse/auth/testing';
import { loadConfig, type ClientConfig } from '../../src/config/config.ts';
import { openClientDatabase } from '../../src/storage/open-client-database.ts';
import { createApp, type ClientApp } from '../../src/app.ts';
import type { ClientSchema } from '../../src/storage/schema.ts';

export interface ClientHarness {
  url: string;
  config: ClientConfig;
  app: ClientApp;
  /** The app's open database (a test may close it to see the app fail). */
  database: Database<ClientSchema>;
  clientSecret: string;
  /** Milliseconds added to the real time on the client's clock. */
  offsetMs: number;
  /** Every response the harness's browser helpers received (to look for leaked secrets). */
  responses: HttpResponse[];
  get(jar: CookieJar, path: string, headers?: Record<string, string>): Promise<HttpResponse>;
  post(jar: CookieJar, path: string, fields: Record<string, string>): Promise<HttpResponse>;
  /** The whole browser login: app → authorize → password → TOTP → callback. Returns the callback's answer. */
  login(jar: CookieJar, user: TestUser, headers?: Record<string, string>): Promise<HttpResponse>;
  /** Every line the app logged, parsed. */
  logs: Record<string, unknown>[];
  /** With `outage: true` (PostgreSQL): cut and restore the database connection. */
  outage?: PostgresOutage;
  close(): Promise<void>;
}

/** Only loopback: unit tests never reach the network. */
export const loopbackFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') throw new Error(`test tried to reach ${url.origin}`);
  return fetch(input, init);
};

const lastSteps = new Map<string, number>();

/** A TOTP code for the user that was not used yet (each 30 s step is accepted once per account). */
export async function nextCode(auth: TestAuthServer, user: TestUser): Promise<string> {
  const now = Date.now();
  let at = now;
  const last = lastSteps.get(user.username);
  if (last !== undefined && Math.floor(now / 30_000) <= last) at = (last + 1) * 30_000;
  lastSteps.set(user.username, Math.floor(at / 30_000));
  return auth.app.services.totp.generate(user.totpSecret, at);
}

export const hiddenField = (page: string, name: string): string => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no field ${name} in page`);
  return match[1]!.replace(/&amp;/g, '&');
};

export async function startClient(options: {
  auth: TestAuthServer;
  apiUrl?: string;
  engine?: Engine;
  env?: Record<string, string>;
  outage?: boolean;
  /** The registry the app records into (default: its own, without process metrics). */
  metrics?: Registry;
  /** Register `<url>/backchannel-logout` as the client's backchannel_logout_uri (logout tokens with `sid`). */
  backchannel?: boolean;
}): Promise<ClientHarness> {
  const { auth } = options;
  const target: TestDatabase = await createTestDatabase(options.outage ? 'postgres' : (options.engine ?? 'sqlite'));
  const outage = options.outage ? await createPostgresOutage(target.url) : undefined;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `rp-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  await auth.app.services.clients.create({
    clientId,
    name: clientId,
    redirectUris: [`${url}/callback`],
    postLogoutRedirectUris: [`${url}/signed-out`],
    clientSecret,
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: true,
    ...(options.backchannel ? { backchannelLogoutUri: `${url}/backchannel-logout`, backchannelLogoutSessionRequired: true } : {}),
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    CLIENT_ID: clientId,
    CLIENT_SECRET: clientSecret,
    CLIENT_URL: url,
    AUTH_ISSUER: auth.issuer,
    API_URL: options.apiUrl ?? 'http://127.0.0.1:9',
    CLIENT_DATABASE_URL: outage?.url ?? target.url,
    CLIENT_COOKIE_KEYS: randomBytes(32).toString('base64url'),
    CLIENT_SSO_CHECK_INTERVAL: '0',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const database = await openClientDatabase(config.databaseUrl, { onConnectionError: () => undefined, connectTimeoutMs: 2_000 });
  const harness = { offsetMs: 0, responses: [] as HttpResponse[], logs: [] as Record<string, unknown>[] } as ClientHarness;
  const logger = pino({ level: 'trace' }, { write: (line: string) => void harness.logs.push(JSON.parse(line) as Record<string, unknown>) });
  const app = createApp(config, { database, clock: () => Date.now() + harness.offsetMs, fetch: loopbackFetch, logger, metrics: options.metrics });
  server.on('request', app.callback());

  const record = (response: HttpResponse): HttpResponse => {
    harness.responses.push(response);
    return response;
  };
  const absolute = (path: string): string => (path.startsWith('http') ? path : `${url}${path}`);

  return Object.assign(harness, {
    url,
    config,
    app,
    database,
    clientSecret,
    ...(outage ? { outage } : {}),
    get: async (jar: CookieJar, path: string, headers: Record<string, string> = {}) => record(await request(jar, absolute(path), { headers })),
    post: async (jar: CookieJar, path: string, fields: Record<string, string>) =>
      record(await request(jar, absolute(path), { method: 'POST', ...form(fields) })),
    async login(jar: CookieJar, user: TestUser, headers: Record<string, string> = {}) {
      const start = record(await request(jar, `${url}/`, { headers }));
      if (start.status !== 302 || !start.location) throw new Error(`landing answered ${start.status}`);
      const page = record(await request(jar, start.location));
      if (page.status !== 200) throw new Error(`authorize answered ${page.status}`);
      const uid = hiddenField(page.text, 'uid');
      const mfa = record(await request(jar, `${auth.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) }));
      if (mfa.status !== 200) throw new Error(`login answered ${mfa.status}`);
      const verify = record(
        await request(jar, `${auth.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, method: 'totp', code: await nextCode(auth, user) }) }),
      );
      if (verify.status !== 302 || !verify.location) throw new Error(`mfa/verify answered ${verify.status}: ${verify.text}`);
      return record(await request(jar, verify.location, { headers }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await database.close().catch(() => undefined);
      await outage?.close();
      await target.drop();
    },
  });
}
