/**
 * The API's metrics over HTTP: createApp on one port, its registry on a metrics listener of its
 * own (port 0), as main.ts wires them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '@gatehouse/db';
import { TEST_POSTGRES_URL } from '@gatehouse/db/testing';
import { createMetricsRegistry, startMetricsServer, type MetricsServer } from '@gatehouse/metrics';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(async () => {
  await issuer.close();
});

async function scrape(metrics: MetricsServer): Promise<string> {
  const r = await fetch(`${metrics.url}/metrics`);
  expect(r.status).toBe(200);
  return r.text();
}

describe('GET /metrics on the metrics listener', () => {
  let api: ApiHarness;
  let metrics: MetricsServer;
  let token: string;
  beforeAll(async () => {
    const registry = createMetricsRegistry();
    api = await startApi({ issuer: issuer.issuer, metrics: registry });
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
    token = await issuer.sign({ scope: 'movies:read movies:write' });
  });
  afterAll(async () => {
    await metrics.close();
    await api.close();
  });

  it('serves the Prometheus text format with process and event-loop metrics', async () => {
    const r = await fetch(`${metrics.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await r.text();
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE db_pool_connections gauge');
    expect(text.split('\n').find((l) => l.startsWith('gatehouse_build_info{'))).toMatch(/^gatehouse_build_info\{app="api",version="0\.1\.0",commit="[0-9a-f]{40}",node_version="v\d+\.\d+\.\d+"\} 1$/);
  });

  it('labels requests with the route pattern, never the id in the path', async () => {
    const created = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 987654, title: 'Metropolis' }) });
    expect(created.status).toBe(201);
    expect((await api.request('/api/movies/987654', { token })).status).toBe(200);
    expect((await api.request('/v2/movies/987654', { token })).status).toBe(200);
    expect((await api.request('/rest/api/2/movies/123456', { token })).status).toBe(404);
    expect((await api.request('/no/such/path/4242')).status).toBe(404);
    expect((await api.request('/healthz')).status).toBe(200);
    expect((await api.request('/problems/item_not_found')).status).toBe(200);
    expect((await api.request('/problems/no_such_code_4242')).status).toBe(404);

    const text = await scrape(metrics);
    expect(text).toContain('http_requests_total{method="POST",route="/api/:collection",status="201"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/api/:collection/:id",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/:version/:collection/:id",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/rest/api/:version/:collection/:id",status="404"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="other",status="404"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/healthz",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/problems/:code",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/problems/:code",status="404"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/api/:collection/:id",status="200"} 1');
    // In the labels only: a metric's value may hold any digits (nodejs_eventloop_lag_seconds 0.003514242).
    const labels = [...text.matchAll(/\{[^}]*\}/g)].map((m) => m[0]).join('\n');
    expect(labels).toContain('route="/api/:collection/:id"');
    for (const raw of ['987654', '123456', '4242', '/no/such', 'no_such_code']) expect(labels).not.toContain(raw);
  });

  it('counts a refused token under its status', async () => {
    expect((await api.request('/api/movies', { token: 'not-a-jwt' })).status).toBe(401);
    expect(await scrape(metrics)).toContain('http_requests_total{method="GET",route="/api/:collection",status="401"} 1');
  });

  it('is not served on the API port', async () => {
    const r = await api.request('/metrics');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('on PostgreSQL', () => {
  let api: ApiHarness;
  let metrics: MetricsServer;
  beforeAll(async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    api = await startApi({ issuer: issuer.issuer, engine: 'postgres', metrics: registry });
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
  });
  afterAll(async () => {
    await metrics.close();
    await api.close();
  });

  it('exports the pool connections by state', async () => {
    const ready = await api.request('/readyz');
    expect(ready.status).toBe(200);
    const text = await scrape(metrics);
    expect(text).toMatch(/^db_pool_connections\{state="total"\} [1-9]\d*$/m);
    expect(text).toMatch(/^db_pool_connections\{state="idle"\} [1-9]\d*$/m);
    expect(text).toContain('db_pool_connections{state="waiting"} 0');
  });

  it('answers /readyz 503 naming the database once the database is gone', async () => {
    const name = new URL(api.config.databaseUrl).pathname.slice(1);
    const admin = openDatabase(TEST_POSTGRES_URL);
    try {
      await sql`drop database ${sql.id(name)} with (force)`.execute(admin.db);
    } finally {
      await admin.close();
    }
    const r = await api.request('/readyz');
    expect(r.status).toBe(503);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.json()).toEqual({ status: 'not_ready', checks: { database: 'failing', authorizationServer: 'ok', migrations: 'failing' } });
    expect((await api.request('/healthz')).status).toBe(200);
  });
});
