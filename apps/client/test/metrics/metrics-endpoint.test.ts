/**
 * The relying party's metrics and health over HTTP: the app on its port, its registry on a
 * metrics listener of its own (port 0), with a real authorization server and a stub API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { createMetricsRegistry, startMetricsServer, type MetricsServer } from '@gatehouse/metrics';
import { hiddenField, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';

let auth: TestAuthServer;
let api: StubApi;
beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
});
afterAll(async () => {
  await api?.close();
  await auth?.close();
});

async function scrape(metrics: MetricsServer): Promise<string> {
  const r = await fetch(`${metrics.url}/metrics`);
  expect(r.status).toBe(200);
  return r.text();
}

describe('GET /metrics on the metrics listener', () => {
  let client: ClientHarness;
  let metrics: MetricsServer;
  beforeAll(async () => {
    const registry = createMetricsRegistry();
    client = await startClient({ auth, apiUrl: api.url, metrics: registry });
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
  });
  afterAll(async () => {
    await metrics?.close();
    await client?.close();
  });

  it('serves the Prometheus text format with process metrics', async () => {
    const r = await fetch(`${metrics.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await r.text();
    for (const name of ['nodejs_eventloop_lag_seconds gauge', 'http_requests_total counter', 'http_request_duration_seconds histogram', 'db_pool_connections gauge']) {
      expect(text).toContain(`# TYPE ${name}`);
    }
  });

  it('names the running build: the app (its client id), version, git commit and Node.js version', async () => {
    const text = await (await fetch(`${metrics.url}/metrics`)).text();
    expect(text.split('\n').find((l) => l.startsWith('gatehouse_build_info{'))).toMatch(/^gatehouse_build_info\{app="[a-z0-9-]+",version="0\.1\.0",commit="[0-9a-f]{40}",node_version="v\d+\.\d+\.\d+"\} 1$/);
  });

  it('labels requests with the route pattern, never the item id, code or state', async () => {
    api.items.clear();
    const jar = new CookieJar();
    const callback = await client.login(jar, await auth.createUser());
    expect(callback.status).toBe(302);
    const csrf = hiddenField((await client.get(jar, '/')).text, '_csrf');
    expect((await client.post(jar, '/items', { _csrf: csrf, id: '31337', value: 'Nosferatu' })).status).toBe(303);
    expect((await client.post(jar, '/items/31337/delete', { _csrf: csrf })).status).toBe(303);
    expect((await client.get(jar, '/no/such/page/8675309')).status).toBe(404);

    const text = await scrape(metrics);
    expect(text).toContain('http_requests_total{method="GET",route="/",status="302"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/callback",status="302"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/",status="200"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/items",status="303"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/items/:id/delete",status="303"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="other",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="POST",route="/items/:id/delete",status="303"} 1');
    // In the labels only: a metric's value may hold any digits.
    const labels = [...text.matchAll(/\{[^}]*\}/g)].map((m) => m[0]).join('\n');
    expect(labels).toContain('route="/items/:id/delete"');
    for (const raw of ['31337', '8675309', 'code=', 'state=']) expect(labels).not.toContain(raw);
  });

  it('is not served on the app port', async () => {
    const r = await fetch(`${client.url}/metrics`);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});

describe('/healthz and /readyz', () => {
  it('answer 200 while the database and the authorization server answer, and 503 naming the database once it is closed', async () => {
    const client = await startClient({ auth, apiUrl: api.url });
    try {
      const health = await fetch(`${client.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('cache-control')).toBe('no-store');
      expect(await health.json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${client.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', authorizationServer: 'ok', migrations: 'ok' } });
      expect(ready.headers.getSetCookie()).toEqual([]);

      await client.database.close();
      const down = await fetch(`${client.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'not_ready', checks: { database: 'failing', authorizationServer: 'ok', migrations: 'failing' } });
      expect((await fetch(`${client.url}/healthz`)).status).toBe(200);
    } finally {
      await client.close();
    }
  });

  it('answer 503 naming the authorization server when its discovery cannot be loaded', async () => {
    const client = await startClient({ auth, apiUrl: api.url, env: { AUTH_ISSUER: 'http://127.0.0.1:9' } });
    try {
      const down = await fetch(`${client.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ status: 'not_ready', checks: { database: 'ok', authorizationServer: 'failing', migrations: 'ok' } });
    } finally {
      await client.close();
    }
  });
});
