/**
 * A real authorization server on a random loopback port, on a throw-away database, for the
 * test suites of the other apps. Tokens come from the real flow (password, TOTP, code + PKCE).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importJWK } from 'jose';
import type { TokenResponse } from '@gatehouse/contracts';
import { createPostgresOutage, createTestDatabase, type PostgresOutage, type TestDatabase } from '@gatehouse/db/testing';
import type { ChangeListener, Database, Engine, PostgresDatabase } from '@gatehouse/db';
import type { Registry } from '@gatehouse/metrics';
import { loadConfig, type AuthConfig } from '../../src/config/config.ts';
import { createLogger, type Logger } from '../../src/logging/logger.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';
import { CLIENT_CHANGES_CHANNEL } from '../../src/clients/client-change-tracker.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import { createApp, type AuthApp } from '../../src/app.ts';
import { createAuthServices } from '../../src/services.ts';
import { hashPassword } from '../../src/accounts/password.ts';
import { loadSigningJwks, rotateSigningKeys } from '../../src/keys/signing-keys.ts';
import type { Mailer } from '../../src/mail/mailer.ts';
import { keyPolicy } from '../../src/keys/key-policy.ts';
import { CookieJar, jsonBody, request } from './cookie-jar.ts';
import { pkcePair } from './pkce.ts';

export interface TestAuthServerOptions {
  tokenFormat?: 'jwt' | 'opaque';
  audience?: string;
  accessTokenTtl?: number;
  apiScopes?: string[];
  /** Extra environment for loadConfig (e.g. AUTH_SESSION_TTL). */
  env?: Record<string, string>;
  clock?: () => number;
  /** Where the server logs (silent by default). */
  logger?: Logger;
  /** Storage engine of the throw-away database (SQLite by default). */
  engine?: Engine;
  /** PostgreSQL only: reach the database through a relay the test can cut (`outage`). */
  outage?: boolean;
  /** The registry the server records its metrics into (default: its own, without process metrics). */
  metrics?: Registry;
  /** How the token path reads its rows (services.ts `tokenPathReads`): joined by default. */
  tokenPathReads?: 'joined' | 'plain';
  /**
   * PostgreSQL only: listen for client changes as server.ts does, so client rows are reused until
   * a change is heard (clients/client-change-tracker.ts); the server is returned once listening.
   */
  listenForClientChanges?: boolean;
  /** The app's mailer (AppDeps.mailer); by default config.mail's (the development outbox in tests without AUTH_SMTP_URL). */
  mailer?: Mailer | null;
  /** The app's outbound fetch (AppDeps.fetch: federation's relying party, back-channel logout, client keys); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export interface TestUser {
  username: string;
  password: string;
  totpSecret: string;
}

export interface TestAuthServer {
  issuer: string;
  audience: string;
  config: AuthConfig;
  app: AuthApp;
  /** The server's database, for tests that read rows or cut it. */
  database: Database<AuthSchema>;
  testClient: { clientId: string; clientSecret: string; redirectUri: string };
  introspectionClient: { clientId: string; clientSecret: string };
  createUser(opts?: { username?: string; groups?: string[]; email?: string; name?: string }): Promise<TestUser>;
  /** With `dpop`, the token request carries the DPoP proof it makes for the token endpoint's URL (a DPoP-bound token, RFC 9449). */
  login(opts: { scope: string; username?: string; groups?: string[]; dpop?: (tokenEndpoint: string) => Promise<string> }): Promise<TokenResponse>;
  rotateKeys(): Promise<void>;
  revoke(token: string): Promise<void>;
  /** RP-initiated logout of the SSO session that login() created for this ID token. */
  logout(idToken: string): Promise<void>;
  sign(payload: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Present with `outage: true`: cut and restore the database connection. */
  outage?: PostgresOutage;
  close(): Promise<void>;
}

export async function startTestAuthServer(options: TestAuthServerOptions = {}): Promise<TestAuthServer> {
  const target: TestDatabase = await createTestDatabase(options.outage ? 'postgres' : (options.engine ?? 'sqlite'));
  const outage = options.outage ? await createPostgresOutage(target.url) : undefined;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-auth-data-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    AUTH_ISSUER: issuer,
    AUTH_DATABASE_URL: outage?.url ?? target.url,
    AUTH_DATA_DIR: dataDir,
    AUTH_API_TOKEN_FORMAT: options.tokenFormat ?? 'jwt',
    ...(options.audience ? { AUTH_API_AUDIENCE: options.audience } : {}),
    ...(options.accessTokenTtl ? { AUTH_ACCESS_TOKEN_TTL: String(options.accessTokenTtl) } : {}),
    ...(options.apiScopes ? { AUTH_API_SCOPES: options.apiScopes.join(',') } : {}),
    AUTH_DEV_SEED: 'false',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const database = await openAuthDatabase(config.databaseUrl, { onConnectionError: () => undefined, connectTimeoutMs: 2_000 });
  const listener = options.listenForClientChanges && database.engine === 'postgres' ? await listening(database) : undefined;
  const chosen =
    options.tokenPathReads || listener
      ? createAuthServices(config, database, options.clock, { ...(options.tokenPathReads ? { tokenPathReads: options.tokenPathReads } : {}), ...(listener ? { clientChangeListener: listener } : {}) })
      : undefined;
  const app = await createApp(config, { database, logger: options.logger ?? createLogger({ level: 'silent' }), clock: options.clock, metrics: options.metrics, ...(options.mailer !== undefined ? { mailer: options.mailer } : {}), ...(options.fetch ? { fetch: options.fetch } : {}), ...(chosen ? { services: chosen } : {}) });
  // The server's own listener (app.handler(), as server.ts uses it).
  server.on('request', app.handler());
  const { services } = app;
  const clock = options.clock ?? Date.now;

  const testClient = { clientId: 'test-app', clientSecret: randomBytes(24).toString('base64url'), redirectUri: 'http://127.0.0.1:9/callback' };
  await services.clients.create({
    clientId: testClient.clientId,
    name: 'Test App',
    redirectUris: [testClient.redirectUri],
    clientSecret: testClient.clientSecret,
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: true,
  });
  const introspectionClient = { clientId: 'api', clientSecret: randomBytes(24).toString('base64url') };
  await services.clients.create({
    clientId: introspectionClient.clientId,
    name: 'API',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    clientSecret: introspectionClient.clientSecret,
  });

  const users = new Map<string, TestUser>();
  const basic = (c: { clientId: string; clientSecret: string }) => `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`;

  const createUser: TestAuthServer['createUser'] = async (opts = {}) => {
    const username = opts.username ?? `user-${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('base64url');
    const account = await services.accounts.create({
      username,
      email: opts.email ?? `${username}@example.com`,
      name: opts.name ?? `Test ${username}`,
      groups: opts.groups ?? ['testers'],
      passwordHash: await hashPassword(password),
    });
    const totpSecret = services.totp.generateSecret();
    await services.accounts.setTotpSecret(account.id, totpSecret);
    const user = { username: account.username, password, totpSecret };
    users.set(user.username, user);
    return user;
  };

  const lastStep = new Map<string, number>();
  const sessions = new Map<string, CookieJar>();
  const login: TestAuthServer['login'] = async ({ scope, username, groups, dpop }) => {
    const user = (username && users.get(username)) || (await createUser({ username, groups }));
    const jar = new CookieJar();
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(8).toString('hex');
    const authorize = new URL('/oauth2/v1/authorize', issuer);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: testClient.clientId,
      redirect_uri: testClient.redirectUri,
      scope,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const page = await request(jar, authorize.toString(), { headers: { accept: 'application/json' } });
    if (page.status !== 200) throw new Error(`authorize answered ${page.status}`);
    const passwordStep = await request(jar, `${issuer}/login`, { method: 'POST', ...jsonBody({ username: user.username, password: user.password }) });
    if (passwordStep.status !== 200) throw new Error(`login answered ${passwordStep.status}: ${passwordStep.text}`);
    // Each TOTP step is accepted once per account: use the next one when this user logged in this step already.
    const now = clock();
    let at = now;
    const last = lastStep.get(user.username);
    if (last !== undefined && Math.floor(now / 30_000) <= last) at = (last + 1) * 30_000;
    const code = await services.totp.generate(user.totpSecret, at);
    lastStep.set(user.username, Math.floor(at / 30_000));
    const verify = await request(jar, `${issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ code }) });
    if (verify.status !== 302 || !verify.location) throw new Error(`mfa/verify answered ${verify.status}: ${verify.text}`);
    const authorizationCode = new URL(verify.location).searchParams.get('code');
    if (!authorizationCode) throw new Error(`no code in ${verify.location}`);
    const tokenEndpoint = `${issuer}/oauth2/v1/token`;
    const token = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { authorization: basic(testClient), 'content-type': 'application/x-www-form-urlencoded', ...(dpop ? { dpop: await dpop(tokenEndpoint) } : {}) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: authorizationCode, redirect_uri: testClient.redirectUri, code_verifier: verifier }),
    });
    const body = (await token.json()) as TokenResponse;
    if (token.status !== 200) throw new Error(`token answered ${token.status}: ${JSON.stringify(body)}`);
    if (body.id_token) sessions.set(body.id_token, jar);
    return body;
  };

  return {
    issuer,
    audience: config.api.audience,
    config,
    app,
    database,
    testClient,
    introspectionClient,
    ...(outage ? { outage } : {}),
    createUser,
    login,
    async rotateKeys() {
      await rotateSigningKeys(services.keys, { nowMs: clock(), retainMs: keyPolicy(config).retainMs });
      await app.reloadKeys();
    },
    async revoke(token: string) {
      const response = await fetch(`${issuer}/oauth2/v1/revoke`, {
        method: 'POST',
        headers: { authorization: basic(testClient), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
      if (response.status !== 200) throw new Error(`revoke answered ${response.status}`);
    },
    async logout(idToken: string) {
      const jar = sessions.get(idToken);
      if (!jar) throw new Error('no session for this ID token (log in with openid)');
      const page = await request(jar, `${issuer}/oauth2/v1/logout?${new URLSearchParams({ id_token_hint: idToken })}`);
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
      if (page.status !== 200 || !xsrf) throw new Error(`logout answered ${page.status}`);
      const confirm = await request(jar, `${issuer}/oauth2/v1/logout/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
      });
      if (confirm.status !== 200 && confirm.status !== 303) throw new Error(`logout confirm answered ${confirm.status}`);
      sessions.delete(idToken);
    },
    async sign(payload, header = {}) {
      const { keys } = await loadSigningJwks(services.keys, clock());
      const jwk = keys[0]!;
      const key = await importJWK(jwk, 'RS256');
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid, ...header }).sign(key);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.shutdown();
      await database.close();
      await outage?.close();
      await target.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The listener of client changes, once it listens (closed with the database). */
async function listening(database: PostgresDatabase<AuthSchema>): Promise<ChangeListener> {
  const listener = database.listen(CLIENT_CHANGES_CHANNEL);
  for (let tries = 0; listener.version() === undefined; tries++) {
    if (tries === 500) throw new Error('the listener of client changes did not start listening within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return listener;
}
