/**
 * The admin router on its own (no database): an unexpected failure is a 500 problem naming the
 * request id with the stack only in the log; HEAD answers like GET; a public route needs no token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../src/admin/http/admin-router.ts';
import { createBearerCheck } from '../../src/admin/http/bearer.ts';
import { captureLogger } from '../support/push.ts';

describe('the admin router', () => {
  const log = captureLogger();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const bearer = createBearerCheck({ tokens: { decode: async () => undefined, isActive: async () => false }, accounts: { findById: async () => undefined }, policies: { clientScopes: async () => null }, audience: 'http://x/admin/v1' });
    const router = createAdminRouter({ bearer, logger: log.logger });
    router.add({
      method: 'GET',
      path: '/boom',
      scope: null,
      summary: 'Fails',
      operationId: 'boom',
      responses: { 200: { description: 'Never' } },
      async handle() {
        throw new Error('secret internals at /srv/app.ts:12');
      },
    });
    router.add({
      method: 'GET',
      path: '/hello/{name}',
      scope: null,
      summary: 'Greets',
      operationId: 'hello',
      params: { name: 'Who' },
      responses: { 200: { description: 'The greeting' } },
      async handle({ params }) {
        return { status: 200, body: { hello: params.name } };
      },
    });
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.state.requestId = 'req-123';
      await next();
    });
    app.use(router.middleware());
    app.use(async (ctx) => {
      ctx.body = 'outside';
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('an unexpected failure: 500 server_error with the request id, no stack or message on the wire', async () => {
    const response = await fetch(`${base}/admin/v1/boom`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      type: 'urn:gatehouse:admin:problem:server_error',
      title: 'Internal Server Error',
      status: 500,
      detail: 'Something went wrong on our side; quote request id req-123.',
      code: 'server_error',
      instance: '/admin/v1/boom',
    });
    expect(text).not.toContain('secret internals');
    expect(log.lines.find((l) => l.msg === 'admin API: unhandled error')).toMatchObject({ request_id: 'req-123', err: expect.objectContaining({ message: 'secret internals at /srv/app.ts:12' }) });
  });

  it('path parameters are decoded; HEAD answers like GET without a body', async () => {
    expect(await (await fetch(`${base}/admin/v1/hello/a%20b`)).json()).toEqual({ hello: 'a b' });
    const head = await fetch(`${base}/admin/v1/hello/x`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('only paths under /admin/v1 are answered; others go on', async () => {
    expect(await (await fetch(`${base}/admin/v10/hello/x`)).text()).toBe('outside');
    expect(await (await fetch(`${base}/admin`)).text()).toBe('outside');
    expect((await fetch(`${base}/admin/v1`)).status).toBe(404);
  });
});
