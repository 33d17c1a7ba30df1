/**
 * The authorization server's metrics and health over HTTP: the app on its port, its registry on
 * a metrics listener of its own (port 0), counts taken through the real login and token flows.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '@gatehouse/db';
import { TEST_POSTGRES_URL } from '@gatehouse/db/testing';
import { createMetricsRegistry, startMetricsServer, type MetricsServer } from '@gatehouse/metrics';
import {
  authorizeUrl,
  basic,
  codeFrom,
  CookieJar,
  exchange,
  form,
  refresh,
  request,
  signIn,
  startServer,
  uidOf,
  type TestAuthServer,
} from '../support/flow.ts';
import { enrollDevice, passwordStep as pushPasswordStep, poll, pushId, readEvents, sendPush, type Waiting } from '../support/push.ts';

let nextIp = 1;
const browser = () => new CookieJar({ 'x-forwarded-for': `192.0.2.${nextIp++}` });

async function scrape(metrics: MetricsServer): Promise<string> {
  const r = await fetch(`${metrics.url}/metrics`);
  expect(r.status).toBe(200);
  return r.text();
}

/** The value of one series, or undefined when it is not exported. */
async function value(metrics: MetricsServer, series: string): Promise<number | undefined> {
  const line = (await scrape(metrics)).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function passwordStep(server: TestAuthServer, jar: CookieJar, username: string, password: string) {
  const page = await request(jar, authorizeUrl(server));
  expect(page.status).toBe(200);
  const uid = uidOf(page.text);
  return { uid, res: await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username, password }) }) };
}

describe('the authorization server with its metrics listener', () => {
  let server: TestAuthServer;
  let metrics: MetricsServer;
  beforeAll(async () => {
    const registry = createMetricsRegistry();
    server = await startServer({ metrics: registry, env: { TRUST_PROXY: 'true', AUTH_REGULATION_MAX_RETRIES: '3', AUTH_REGULATION_DELAY_AFTER: '3' } });
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
  });
  afterAll(async () => {
    await metrics.close();
    await server.close();
  });

  it('serves /metrics in the Prometheus text format with process metrics', async () => {
    const r = await fetch(`${metrics.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await r.text();
    for (const name of ['nodejs_eventloop_lag_seconds gauge', 'http_requests_total counter', 'auth_logins_total counter', 'auth_second_factors_total counter', 'auth_lockouts_total counter', 'auth_tokens_issued_total counter', 'auth_push_streams_active gauge', 'db_pool_connections gauge']) {
      expect(text).toContain(`# TYPE ${name}`);
    }
  });

  it('names the running build: app, version, git commit and Node.js version', async () => {
    const line = (await scrape(metrics)).split('\n').find((l) => l.startsWith('gatehouse_build_info{'));
    expect(line).toMatch(/^gatehouse_build_info\{app="auth",version="0\.1\.0",commit="[0-9a-f]{40}",node_version="v\d+\.\d+\.\d+"\} 1$/);
    expect(line).toContain(`node_version="${process.version}"`);
  });

  it('does not serve /metrics on the issuer port', async () => {
    const r = await fetch(`${server.issuer}/metrics`);
    expect(r.status).toBe(404);
  });

  it('counts a failed and a successful password step, and a TOTP success, through the real flow', async () => {
    const user = await server.createUser();
    const jar = browser();
    const failed = await passwordStep(server, jar, user.username, 'not-the-password');
    expect(failed.res.status).toBe(401);
    expect((await request(jar, `${server.issuer}/interaction/${failed.uid}`)).status).toBe(200);
    const done = await signIn(server, browser(), user, authorizeUrl(server));
    expect(done.status).toBe(302);

    expect(await value(metrics, 'auth_logins_total{step="password",outcome="failure"}')).toBe(1);
    expect(await value(metrics, 'auth_logins_total{step="password",outcome="success"}')).toBe(1);
    expect(await value(metrics, 'auth_logins_total{step="mfa",outcome="success"}')).toBe(1);
    expect(await value(metrics, 'auth_second_factors_total{method="totp",outcome="success"}')).toBe(1);
    const text = await scrape(metrics);
    expect(text).not.toContain(user.username);
    expect(text).toContain('http_requests_total{method="POST",route="/login",status="401"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/login",status="200"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/mfa/verify",status="302"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/oauth2/v1/authorize",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="/interaction/:uid",status="200"} 1');
    expect(text).not.toContain(failed.uid);
  });

  it('names "Sign out everywhere", an own route inside the provider\'s /oauth2/v1/logout, by its path', async () => {
    const refused = await request(browser(), `${server.issuer}/oauth2/v1/logout/everywhere`, { method: 'POST', ...form({ nonce: 'no-record' }) });
    expect(refused.status).toBe(400);
    expect(await scrape(metrics)).toContain('http_requests_total{method="POST",route="/oauth2/v1/logout/everywhere",status="400"} 1');
  });

  it('counts a wrong TOTP code as an mfa failure', async () => {
    const user = await server.createUser();
    const jar = browser();
    const { uid, res } = await passwordStep(server, jar, user.username, user.password);
    expect(res.status).toBe(200);
    const right = await server.app.services.totp.generate(user.totpSecret, Date.now());
    const wrong = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: right === '000000' ? '111111' : '000000' }) });
    expect(wrong.status).toBe(401);
    expect(await value(metrics, 'auth_logins_total{step="mfa",outcome="failure"}')).toBe(1);
    expect(await value(metrics, 'auth_second_factors_total{method="totp",outcome="failure"}')).toBe(1);
  });

  it('counts a lockout once, when the failure that starts the ban happens, and refusals while banned', async () => {
    const user = await server.createUser();
    const jar = browser();
    expect(await value(metrics, 'auth_lockouts_total{step="password"}')).toBeUndefined();
    for (let i = 0; i < 3; i += 1) expect((await passwordStep(server, jar, user.username, `wrong-${i}`)).res.status).toBe(401);
    expect(await value(metrics, 'auth_lockouts_total{step="password"}')).toBe(1);
    expect((await passwordStep(server, jar, user.username, user.password)).res.status).toBe(429);
    expect((await passwordStep(server, jar, user.username, user.password)).res.status).toBe(429);
    expect(await value(metrics, 'auth_lockouts_total{step="password"}')).toBe(1);
    expect(await value(metrics, 'auth_logins_total{step="password",outcome="locked"}')).toBe(2);
  });

  it('counts issued tokens by grant type', async () => {
    const user = await server.createUser();
    const done = await signIn(server, browser(), user, authorizeUrl(server));
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    expect(await value(metrics, 'auth_tokens_issued_total{grant_type="authorization_code"}')).toBe(1);
    expect(typeof tokens.body.refresh_token).toBe('string');
    expect((await refresh(server, tokens.body.refresh_token as string)).status).toBe(200);
    expect(await value(metrics, 'auth_tokens_issued_total{grant_type="refresh_token"}')).toBe(1);
    const c = server.introspectionClient;
    const credentials = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(c.clientId, c.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(credentials.status).toBe(200);
    expect(await value(metrics, 'auth_tokens_issued_total{grant_type="client_credentials"}')).toBe(1);
    const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
    const rs = { clientId: 'metrics-rs', clientSecret: 'metrics-rs-secret-0123456789abcdef' };
    await server.app.services.clients.create({ ...rs, redirectUris: [], grantTypes: [tokenExchange], tokenExchange: { audiences: [server.audience], scopes: ['movies:read'] } });
    const subject = await server.login({ scope: 'movies:read' });
    const exchanged = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(rs.clientId, rs.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: tokenExchange, subject_token: subject.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' }),
    });
    expect(exchanged.status).toBe(200);
    expect(await value(metrics, `auth_tokens_issued_total{grant_type="${tokenExchange}"}`)).toBe(1);
    expect(await value(metrics, 'auth_tokens_issued_total{grant_type="other"}')).toBeUndefined();
    const refused = await exchange(server, 'not-a-code');
    expect(refused.status).toBe(400);
    expect(await value(metrics, 'auth_tokens_issued_total{grant_type="authorization_code"}')).toBe(2);
    expect(await scrape(metrics)).toContain('http_requests_total{method="POST",route="/oauth2/v1/token",status="400"} 1');
  });

  it('counts push second factors: an approval when it completes the login, a denial when it is answered', async () => {
    const user = await server.createUser();
    const { authenticator } = await enrollDevice(server, user, Date.now);
    const successesBefore = (await value(metrics, 'auth_logins_total{step="mfa",outcome="success"}')) ?? 0;
    const push = async () => {
      const { jar } = await pushPasswordStep(server, user);
      const waiting = (await sendPush(server, jar)).json<Waiting>();
      return { jar, waiting, id: pushId(waiting) };
    };
    const approved = await push();
    expect((await authenticator.answer(approved.id, 'approve', approved.waiting.number)).status).toBe(200);
    expect(await value(metrics, 'auth_second_factors_total{method="push",outcome="success"}')).toBeUndefined();
    expect((await poll(server, approved.jar, approved.waiting)).status).toBe(302);
    expect(await value(metrics, 'auth_second_factors_total{method="push",outcome="success"}')).toBe(1);
    expect(await value(metrics, 'auth_logins_total{step="mfa",outcome="success"}')).toBe(successesBefore + 1);

    const denied = await push();
    expect((await authenticator.answer(denied.id, 'deny', '')).json()).toEqual({ state: 'REJECTED' });
    expect(await value(metrics, 'auth_second_factors_total{method="push",outcome="denied"}')).toBe(1);
    const text = await scrape(metrics);
    expect(text).toContain('http_requests_total{method="GET",route="/mfa/push/:id",status="302"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/authenticator/api/requests/:id/answer",status="200"} 2');
    expect(text).not.toContain(approved.id);
  });

  it('shows open authenticator event streams in a gauge that goes up and down', async () => {
    const user = await server.createUser();
    const { authenticator } = await enrollDevice(server, user, Date.now);
    expect(await value(metrics, 'auth_push_streams_active')).toBe(0);
    const streams = [new AbortController(), new AbortController()];
    for (const controller of streams) {
      const response = await fetch(`${server.issuer}/authenticator/api/events?${await authenticator.signedQuery()}`, { signal: controller.signal });
      expect(response.status).toBe(200);
      expect((await readEvents(response)()).event).toBe('requests');
    }
    expect(await value(metrics, 'auth_push_streams_active')).toBe(2);
    streams[0]!.abort();
    await vi.waitFor(async () => expect(await value(metrics, 'auth_push_streams_active')).toBe(1));
    streams[1]!.abort();
    await vi.waitFor(async () => expect(await value(metrics, 'auth_push_streams_active')).toBe(0));
    const text = await scrape(metrics);
    expect(text).toContain('http_requests_total{method="GET",route="/authenticator/api/events",status="200"} 2');
    expect(text).not.toContain(authenticator.deviceId);
  });
});

describe('/healthz and /readyz', () => {
  it('answer 200 while the database answers and the signing keys are loaded, and 503 naming the database once it is closed', async () => {
    const server = await startServer();
    try {
      const health = await fetch(`${server.issuer}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('cache-control')).toBe('no-store');
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${server.issuer}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', signingKeys: 'ok', migrations: 'ok' } });
      const post = await fetch(`${server.issuer}/readyz`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');

      await server.database.db.destroy();
      const down = await fetch(`${server.issuer}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'not_ready', checks: { database: 'failing', signingKeys: 'ok', migrations: 'failing' } });
      expect((await fetch(`${server.issuer}/healthz`)).status).toBe(200);
    } finally {
      await server.close().catch(() => undefined);
    }
  });

  it('carry X-Request-Id like every other answer: the caller\'s safe one, else a new one', async () => {
    const server = await startServer();
    try {
      const given = await fetch(`${server.issuer}/healthz`, { headers: { 'x-request-id': 'probe-42' } });
      expect(given.headers.get('x-request-id')).toBe('probe-42');
      const fresh = await fetch(`${server.issuer}/readyz`, { headers: { 'x-request-id': 'not safe!' } });
      expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const refused = await fetch(`${server.issuer}/healthz`, { method: 'DELETE' });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await server.close();
    }
  });

  it('answer 503 on PostgreSQL once the database is dropped', async () => {
    const server = await startServer({ engine: 'postgres' });
    try {
      expect((await fetch(`${server.issuer}/readyz`)).status).toBe(200);
      const name = new URL(server.config.databaseUrl).pathname.slice(1);
      const admin = openDatabase(TEST_POSTGRES_URL);
      try {
        await sql`drop database ${sql.id(name)} with (force)`.execute(admin.db);
      } finally {
        await admin.close();
      }
      const down = await fetch(`${server.issuer}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'not_ready', checks: { database: 'failing', signingKeys: 'ok', migrations: 'failing' } });
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});

describe('gatehouse_signing_key_age_seconds', () => {
  it('is the age of the key that signs, on the server\'s clock, and starts again at a rotation', async () => {
    const T = Date.parse('2026-11-26T08:00:00.000Z');
    let now = T;
    const registry = createMetricsRegistry({ processMetrics: false });
    const server = await startServer({ metrics: registry, clock: () => now });
    const metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
    try {
      expect(await value(metrics, 'gatehouse_signing_key_age_seconds')).toBe(0);
      now += 3 * 86_400_000 + 500;
      expect(await value(metrics, 'gatehouse_signing_key_age_seconds')).toBe(3 * 86_400 + 0.5);
      await server.rotateKeys();
      await server.app.reloadKeys();
      expect(await value(metrics, 'gatehouse_signing_key_age_seconds')).toBe(0);
    } finally {
      await metrics.close();
      await server.close();
    }
  });
});
