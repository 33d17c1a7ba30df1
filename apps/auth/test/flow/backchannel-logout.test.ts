/**
 * The logout tokens the authorization server posts (OpenID Connect Back-Channel Logout 1.0 §2.4),
 * received by a stub relying party on loopback and checked with jose against the server's JWKS:
 * after an RP-initiated logout (with `sid` for a client that requires it, and without for one that
 * does not), and after `authctl user disable`, which reaches the clients from its own process;
 * and a delivery still waiting for its retry when the server shuts down, audited as dropped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { runCli } from '../../src/cli/run-cli.ts';
import { startTestAuthServer, type TestAuthServer } from '../support/index.ts';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let auth: TestAuthServer;
let relyingParty: Server;
let received: { path: string; contentType: string | undefined; body: URLSearchParams }[] = [];

beforeAll(async () => {
  auth = await startTestAuthServer();
  relyingParty = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: new URLSearchParams(body) });
      res.statusCode = req.url === '/down' ? 503 : 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => relyingParty.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  relyingParty?.closeAllConnections();
  await new Promise<void>((resolve) => relyingParty?.close(() => resolve()));
  await auth?.close();
});

const rpUrl = () => `http://127.0.0.1:${(relyingParty.address() as AddressInfo).port}`;

async function verified(token: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(`${auth.issuer}/oauth2/v1/keys`)), { issuer: auth.issuer, audience: auth.testClient.clientId });
  return payload;
}

describe('logout tokens', () => {
  it('an RP-initiated logout posts one signed token with sub, sid, events, iat, exp, jti and no nonce', async () => {
    await auth.app.services.clients.update(auth.testClient.clientId, { backchannelLogoutUri: `${rpUrl()}/bc?app=test`, backchannelLogoutSessionRequired: true });
    received = [];
    const tokens = await auth.login({ scope: 'openid' });
    const idToken = (await verified(tokens.id_token!)) as JWTPayload & { sid?: string };
    await auth.logout(tokens.id_token!);
    expect(received.length).toBe(1);
    expect(received[0]!.path).toBe('/bc?app=test');
    expect(received[0]!.contentType).toBe('application/x-www-form-urlencoded');
    const token = received[0]!.body.get('logout_token')!;
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: 'logout+jwt', alg: 'RS256' });
    const payload = await verified(token);
    expect(Object.keys(payload).sort()).toEqual(['aud', 'events', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(payload.sub).toBe(idToken.sub);
    expect(payload.sid).toBe(idToken.sid);
    expect(typeof idToken.sid).toBe('string');
    expect(payload.events).toEqual({ [EVENT]: {} });
    expect(payload.exp! - payload.iat!).toBe(120);
  });

  it('a client that does not require sid gets none (its ID tokens carry none either)', async () => {
    await auth.app.services.clients.update(auth.testClient.clientId, { backchannelLogoutSessionRequired: false });
    received = [];
    const tokens = await auth.login({ scope: 'openid' });
    expect(await verified(tokens.id_token!)).not.toHaveProperty('sid');
    await auth.logout(tokens.id_token!);
    expect(received.length).toBe(1);
    const payload = await verified(received[0]!.body.get('logout_token')!);
    expect(payload).not.toHaveProperty('sid');
    expect(payload).not.toHaveProperty('nonce');
  });

  it('authctl user disable tells the clients of every session of the user', async () => {
    await auth.app.services.clients.update(auth.testClient.clientId, { backchannelLogoutSessionRequired: true });
    const username = `cli-${Date.now()}`;
    await auth.login({ scope: 'openid', username });
    await auth.login({ scope: 'openid', username });
    received = [];
    let stderr = '';
    const code = await runCli(['user', 'disable', username], {
      stdin: '',
      stdout: () => undefined,
      stderr: (s) => (stderr += s),
      env: { NODE_ENV: 'test', AUTH_ISSUER: auth.issuer, AUTH_DATABASE_URL: auth.config.databaseUrl, AUTH_DATA_DIR: auth.config.dataDir, AUTH_API_TOKEN_FORMAT: 'jwt', AUTH_DEV_SEED: 'false' },
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(received.length).toBe(2);
    const account = await auth.app.services.accounts.findByUsername(username);
    const payloads = await Promise.all(received.map((r) => verified(r.body.get('logout_token')!)));
    expect(payloads.map((p) => p.sub)).toEqual([account!.id, account!.id]);
    expect(new Set(payloads.map((p) => p.sid)).size).toBe(2);
  });

  it('a delivery still waiting for its retry at shutdown is stored as dropped: the retry queue is in memory', async () => {
    await auth.app.services.clients.update(auth.testClient.clientId, { backchannelLogoutUri: `${rpUrl()}/down` });
    received = [];
    const tokens = await auth.login({ scope: 'openid' });
    await auth.logout(tokens.id_token!);
    expect(received.map((r) => r.path)).toEqual(['/down']);
    expect(auth.app.backchannelLogout.pending()).toBe(1);
    await auth.app.shutdown();
    expect(auth.app.backchannelLogout.pending()).toBe(0);
    // Newest first; the client is a column of its own.
    const stored = (await auth.app.services.auditTrail.query({ limit: 200, clientId: auth.testClient.clientId })).items.filter((item) => item.event.startsWith('session.backchannel_logout.'));
    expect(stored.map((item) => [item.event, item.fields])).toEqual([
      ['session.backchannel_logout.dropped', { attempts: 1, due_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }],
      ['session.backchannel_logout.failed', { attempt: 1, reason: 'status', status: 503, retried: true }],
    ]);
  });
});
