import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsRegistry, httpMetrics, routeTable, type Registry } from '../src/index.ts';

describe('httpMetrics', () => {
  let registry: Registry;
  let server: Server;
  let url: string;
  let clock = 0;

  beforeAll(async () => {
    registry = createMetricsRegistry({ processMetrics: false });
    const app = new Koa();
    app.silent = true;
    app.use(httpMetrics({ registry, route: routeTable(['/items/:id', '/boom', '/raw', '/resume']), now: () => clock }));
    app.use(async (ctx, next) => {
      if (ctx.path !== '/resume') return next();
      // An internal rewrite, like the auth server's resumed authorization.
      ctx.method = 'GET';
      ctx.url = '/items/internal-id';
      await next();
    });
    app.use(async (ctx) => {
      clock += 250;
      if (ctx.path === '/boom') throw new Error('unexpected');
      if (ctx.path === '/raw') {
        ctx.respond = false;
        ctx.res.writeHead(202).end();
        return;
      }
      if (ctx.path.startsWith('/items/')) ctx.body = { ok: true };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('counts by route pattern and status, never by raw path', async () => {
    expect((await fetch(`${url}/items/secret-id-1`)).status).toBe(200);
    expect((await fetch(`${url}/items/secret-id-2`)).status).toBe(200);
    expect((await fetch(`${url}/nowhere/token-abc`)).status).toBe(404);
    expect((await fetch(`${url}/boom`)).status).toBe(500);
    expect((await fetch(`${url}/raw`, { method: 'POST' })).status).toBe(202);
    expect((await fetch(`${url}/resume`, { method: 'POST' })).status).toBe(200);
    const text = await registry.metrics();
    expect(text).toContain('http_requests_total{method="GET",route="/items/:id",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="other",status="404"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/boom",status="500"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/raw",status="202"} 1');
    expect(text).toContain('http_requests_total{method="POST",route="/resume",status="200"} 1');
    expect(text).not.toContain('secret-id');
    expect(text).not.toContain('token-abc');
  });

  it('observes the duration in seconds in the histogram', async () => {
    const text = await registry.metrics();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.1",method="GET",route="/items/:id",status="200"} 0');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.25",method="GET",route="/items/:id",status="200"} 2');
    expect(text).toContain('http_request_duration_seconds_sum{method="GET",route="/items/:id",status="200"} 0.5');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/items/:id",status="200"} 2');
  });
});
