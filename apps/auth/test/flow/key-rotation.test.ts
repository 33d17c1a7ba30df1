/**
 * Scheduled signing-key rotation as the wire shows it: the JWKS at /oauth2/v1/keys and the kid of
 * the tokens the real flow issues. Time moves only through the injected clock; the maintenance
 * timer main.ts runs is one `tick()` here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import type { TokenResponse } from '@gatehouse/contracts';
import { createApp, KEY_CHECK_INTERVAL_MS, type AuthApp } from '../../src/app.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';

const SECOND = 1000;
const DAY = 86_400 * SECOND;
const PREPUBLISH = 1800 * SECOND;
/** The active key's age at which its successor is published. */
const DUE = DAY - PREPUBLISH;
/** Access and ID tokens live 3600 s by default; + 5 s reload lag + 300 s clock tolerance. */
const RETAIN = (3600 + 5 + 300) * SECOND;
const ROTATION = { AUTH_KEY_ROTATION_INTERVAL: '86400', AUTH_KEY_PREPUBLISH: '1800' };

async function publishedKids(issuer: string): Promise<string[]> {
  const res = await fetch(`${issuer}/oauth2/v1/keys`);
  expect(res.status).toBe(200);
  const jwks = (await res.json()) as JSONWebKeySet;
  for (const key of jwks.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  return jwks.keys.map((k) => k.kid!);
}

/** The kids in the headers of the ID token and the access token. */
function kids(tokens: TokenResponse): [string | undefined, string | undefined] {
  return [decodeProtectedHeader(String(tokens.id_token)).kid, decodeProtectedHeader(tokens.access_token).kid];
}

describe.each(TEST_ENGINES)('scheduled key rotation on %s', (engine) => {
  const T0 = Math.floor(Date.now() / SECOND) * SECOND;
  let now = T0;
  let server: TestAuthServer;
  let a: string;
  let p: string;
  let oldTokens: TokenResponse;
  const login = () => server.login({ scope: 'openid profile movies:read' });
  /** One tick of the maintenance timer main.ts runs (the check runs when due by the clock). */
  const tick = () => server.app.maintenance.runDue();
  const storedKeys = async () => (await server.app.services.keys.list()).map((k) => [k.kid, k.createdAt, k.activatesAt, k.retiredAt, k.expiresAt]);

  async function verifyWithJwks(tokens: TokenResponse) {
    const keySet = createLocalJWKSet((await (await fetch(`${server.issuer}/oauth2/v1/keys`)).json()) as JSONWebKeySet);
    await jwtVerify(String(tokens.id_token), keySet, { issuer: server.issuer, audience: server.testClient.clientId });
    await jwtVerify(tokens.access_token, keySet, { issuer: server.issuer, audience: server.audience });
  }

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => now, env: ROTATION });
    a = (await server.app.services.keys.list())[0]!.kid;
  });
  afterAll(() => server.close());

  it('(a) before interval − prepublish nothing happens', async () => {
    now = T0 + DUE - 10 * SECOND;
    await tick();
    expect(await publishedKids(server.issuer)).toEqual([a]);
    expect(kids(await login())).toEqual([a, a]);
    expect(await storedKeys()).toEqual([[a, T0, null, null, null]]);
  });

  it('(b) then a pending key is published while the old key still signs', async () => {
    now = T0 + DUE;
    await tick();
    const published = await publishedKids(server.issuer);
    expect(published).toHaveLength(2);
    expect(published[0]).toBe(a);
    p = published[1]!;
    expect(await storedKeys()).toEqual([
      [p, T0 + DUE, T0 + DAY, null, null],
      [a, T0, null, null, null],
    ]);
    oldTokens = await login();
    expect(kids(oldTokens)).toEqual([a, a]);
  });

  it('(c) after activation, within KEY_CHECK_INTERVAL_MS, new tokens carry the new kid; old tokens still verify', async () => {
    now = T0 + DAY - SECOND;
    await tick();
    expect(await publishedKids(server.issuer)).toEqual([a, p]);
    // Activation has passed, but this instance has not checked since: requests do not switch the signer.
    now = T0 + DAY + SECOND;
    expect(kids(await login())).toEqual([a, a]);
    // The next check, at most KEY_CHECK_INTERVAL_MS after activation, switches the signer.
    now = T0 + DAY - SECOND + KEY_CHECK_INTERVAL_MS;
    await tick();
    expect(await publishedKids(server.issuer)).toEqual([p, a]);
    const newTokens = await login();
    expect(kids(newTokens)).toEqual([p, p]);
    expect(await storedKeys()).toEqual([
      [p, T0 + DUE, T0 + DAY, null, null],
      [a, T0, null, T0 + DAY, T0 + DAY + RETAIN],
    ]);
    await verifyWithJwks(oldTokens);
    await verifyWithJwks(newTokens);
  });

  it('(d) after the old key expires it is gone from the JWKS', async () => {
    now = T0 + DAY + RETAIN - 10 * SECOND;
    await tick();
    expect(await publishedKids(server.issuer)).toEqual([p, a]);
    now = T0 + DAY + RETAIN;
    await tick();
    expect(await publishedKids(server.issuer)).toEqual([p]);
    expect(await storedKeys()).toEqual([[p, T0 + DUE, T0 + DAY, null, null]]);
    await expect(verifyWithJwks(oldTokens)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect(kids(await login())).toEqual([p, p]);
  });
});

describe.each(TEST_ENGINES)('(e) rotation off on %s', (engine) => {
  const T0 = Math.floor(Date.now() / SECOND) * SECOND;
  let now = T0;
  let server: TestAuthServer;
  const tick = () => server.app.maintenance.runDue();
  beforeAll(async () => {
    server = await startServer({ engine, clock: () => now, env: { AUTH_KEY_ROTATION_INTERVAL: 'off' } });
  });
  afterAll(() => server.close());

  it('never rotates automatically', async () => {
    const [a] = (await server.app.services.keys.list()).map((k) => k.kid);
    for (const days of [1, 30, 365]) {
      now = T0 + days * DAY;
      await tick();
      expect(await publishedKids(server.issuer)).toEqual([a]);
    }
    expect(kids(await server.login({ scope: 'openid movies:read' }))).toEqual([a, a]);
    expect(await server.app.services.keys.list()).toHaveLength(1);
  });
});

describe.each(TEST_ENGINES)('(f) two instances on one %s database', (engine) => {
  const T0 = Math.floor(Date.now() / SECOND) * SECOND;
  let now = T0;
  let first: TestAuthServer;
  let second: { app: AuthApp; issuer: string; http: Server; close(): Promise<void> };

  beforeAll(async () => {
    first = await startServer({ engine, clock: () => now, env: ROTATION });
    const database = await openAuthDatabase(first.config.databaseUrl);
    const app = await createApp(first.config, { database, clock: () => now, logger: createLogger({ level: 'silent' }) });
    const http = createServer(app.callback());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    second = {
      app,
      http,
      issuer: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      async close() {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
        await database.close();
      },
    };
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('create exactly one pending key when they check at the same instant, and both switch to it', async () => {
    const [a] = (await first.app.services.keys.list()).map((k) => k.kid);
    expect(await publishedKids(second.issuer)).toEqual([a]);

    now = T0 + DUE;
    expect(await Promise.all([first.app.reloadKeys(), second.app.reloadKeys()])).toEqual([true, true]);
    const stored = await first.app.services.keys.list();
    expect(stored.map((k) => [k.activatesAt, k.replacesKid])).toEqual([
      [T0 + DAY, a],
      [null, null],
    ]);
    const p = stored[0]!.kid;
    expect(await publishedKids(first.issuer)).toEqual([a, p]);
    expect(await publishedKids(second.issuer)).toEqual([a, p]);

    now = T0 + DAY;
    expect(await Promise.all([first.app.reloadKeys(), second.app.reloadKeys()])).toEqual([true, true]);
    expect(await publishedKids(first.issuer)).toEqual([p, a]);
    expect(await publishedKids(second.issuer)).toEqual([p, a]);
    expect(kids(await first.login({ scope: 'openid movies:read' }))).toEqual([p, p]);
    expect((await first.app.services.keys.list()).map((k) => [k.kid, k.retiredAt, k.expiresAt])).toEqual([
      [p, null, null],
      [a, T0 + DAY, T0 + DAY + RETAIN],
    ]);
  });
});
