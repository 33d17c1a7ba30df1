import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, createMetricsRegistry, startMetricsServer, type MetricsServer } from '../src/index.ts';

describe('startMetricsServer', () => {
  let server: MetricsServer;

  beforeAll(async () => {
    const registry = createMetricsRegistry();
    new Counter({ name: 'test_things_total', help: 'Things.', registers: [registry] }).inc(3);
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
  });
  afterAll(async () => {
    await server.close();
  });

  it('binds a free port for port 0 and says which', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('serves GET /metrics in the Prometheus text format', async () => {
    const r = await fetch(`${server.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
    const text = await r.text();
    expect(text).toContain('# HELP test_things_total Things.\n# TYPE test_things_total counter\ntest_things_total 3\n');
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('answers HEAD without a body, 405 to other methods and 404 elsewhere', async () => {
    const head = await fetch(`${server.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${server.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const other = await fetch(`${server.url}/`);
    expect(other.status).toBe(404);
    expect(await other.text()).toBe('not found\n');
  });

  it('rejects with the listen error when the port is taken', async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    await expect(startMetricsServer({ host: '127.0.0.1', port: server.port, registry })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('stops listening on close', async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    const other = await startMetricsServer({ host: '127.0.0.1', port: 0, registry });
    await other.close();
    await expect(fetch(`${other.url}/metrics`)).rejects.toThrow();
  });
});
