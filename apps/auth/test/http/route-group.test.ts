import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstSegment, routeGroup, servedPaths, servedSegments } from '../../src/http/route-group.ts';

/** The app under test: [group] → a last middleware standing for oidc-provider's endpoints. */
async function serveGroup(parts: Parameters<typeof routeGroup>[0], entered: string[]) {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    await next();
    ctx.set('x-entered', entered.splice(0).join(',') || 'none');
  });
  app.use(routeGroup(parts));
  app.use((ctx) => {
    entered.push('endpoint');
    // Like oidc-provider, it answers only the methods it knows; anything else stays a 404.
    if (ctx.method === 'GET' || ctx.method === 'POST') ctx.body = { endpoint: ctx.path };
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('firstSegment', () => {
  it.each([
    ['/oauth2/v1/token', 'oauth2'],
    ['/Admin/v1/users', 'admin'],
    ['/login', 'login'],
    ['/login/', 'login'],
    ['/', ''],
    ['//login', ''],
  ])('%s → %j', (path, segment) => {
    expect(firstSegment(path)).toBe(segment);
  });
});

describe('routeGroup', () => {
  const entered: string[] = [];
  let server: Awaited<ReturnType<typeof serveGroup>>;
  beforeAll(async () => {
    const pages = new Router();
    pages.get('/login', (ctx: Context) => {
      entered.push('login');
      ctx.body = 'login page';
    });
    pages.post('/mfa/push/:id', (ctx: Context) => {
      entered.push('push');
      ctx.body = { id: ctx.params.id };
    });
    const files = new Router({ strict: true, sensitive: true });
    files.get('/static/app.css', (ctx: Context) => {
      ctx.type = 'text/css';
      ctx.body = 'body{}';
    });
    server = await serveGroup(
      [
        {
          segments: ['admin'],
          middleware: async (ctx, next) => {
            entered.push('admin');
            if (ctx.path.startsWith('/admin/')) ctx.body = { admin: true };
            else await next();
          },
        },
        pages,
        files,
      ],
      entered,
    );
  });
  afterAll(() => server.close());

  it('sends a path none of its parts serves straight to the next middleware', async () => {
    const r = await fetch(`${server.url}/oauth2/v1/token`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ endpoint: '/oauth2/v1/token' });
    expect(r.headers.get('x-entered')).toBe('endpoint');
  });

  it('runs its parts in order for a path they serve', async () => {
    const r = await fetch(`${server.url}/login`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('login page');
    expect(r.headers.get('x-entered')).toBe('admin,login');
    const admin = await fetch(`${server.url}/admin/v1/users`);
    expect(await admin.json()).toEqual({ admin: true });
    expect(admin.headers.get('x-entered')).toBe('admin');
  });

  it('matches routes with parameters and without case, as the routers do', async () => {
    const push = await fetch(`${server.url}/mfa/push/abc`, { method: 'POST' });
    expect(await push.json()).toEqual({ id: 'abc' });
    expect(push.headers.get('x-entered')).toBe('admin,push');
    const upper = await fetch(`${server.url}/LOGIN`);
    expect(await upper.text()).toBe('login page');
    // A case-sensitive router still answers only its exact path; the others go on to the endpoint.
    const css = await fetch(`${server.url}/static/app.css`);
    expect(await css.text()).toBe('body{}');
    const cssUpper = await fetch(`${server.url}/STATIC/app.css`);
    expect(await cssUpper.json()).toEqual({ endpoint: '/STATIC/app.css' });
    expect(cssUpper.headers.get('x-entered')).toBe('admin,endpoint');
  });

  it('keeps the routers’ answer to a method a served path does not offer', async () => {
    const r = await fetch(`${server.url}/login`, { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('HEAD, GET');
    expect(r.headers.get('x-entered')).toBe('admin,endpoint');
    // Outside the group's paths the same request is the endpoint's own 404.
    const outside = await fetch(`${server.url}/oauth2/v1/token`, { method: 'DELETE' });
    expect(outside.status).toBe(404);
    expect(outside.headers.get('allow')).toBeNull();
  });

  it('lets a served first segment with no matching route through to the endpoint', async () => {
    const r = await fetch(`${server.url}/mfa/other`);
    expect(await r.json()).toEqual({ endpoint: '/mfa/other' });
    expect(r.headers.get('x-entered')).toBe('admin,endpoint');
  });
});

describe('routeGroup with a route that could match any path', () => {
  const entered: string[] = [];
  let server: Awaited<ReturnType<typeof serveGroup>>;
  beforeAll(async () => {
    const catchAll = new Router();
    catchAll.get('/:page', (ctx: Context) => {
      entered.push('page');
      ctx.body = { page: ctx.params.page };
    });
    server = await serveGroup([catchAll], entered);
  });
  afterAll(() => server.close());

  it('enters the group for every request', async () => {
    const r = await fetch(`${server.url}/anything`);
    expect(await r.json()).toEqual({ page: 'anything' });
    expect(r.headers.get('x-entered')).toBe('page');
    const deeper = await fetch(`${server.url}/oauth2/v1/token`);
    expect(await deeper.json()).toEqual({ endpoint: '/oauth2/v1/token' });
    expect(deeper.headers.get('x-entered')).toBe('endpoint');
  });
});

describe('routeGroup with an exact part inside a segment the endpoints serve', () => {
  const entered: string[] = [];
  let server: Awaited<ReturnType<typeof serveGroup>>;
  beforeAll(async () => {
    const everywhere = new Router();
    everywhere.post('/oauth2/v1/logout/everywhere', (ctx: Context) => {
      entered.push('everywhere');
      ctx.body = { everywhere: true };
    });
    server = await serveGroup([{ exact: everywhere }], entered);
  });
  afterAll(() => server.close());

  it('is entered by its exact path, without case', async () => {
    const r = await fetch(`${server.url}/oauth2/v1/logout/everywhere`, { method: 'POST' });
    expect(await r.json()).toEqual({ everywhere: true });
    expect(r.headers.get('x-entered')).toBe('everywhere');
    const upper = await fetch(`${server.url}/OAuth2/v1/logout/Everywhere`, { method: 'POST' });
    expect(await upper.json()).toEqual({ everywhere: true });
  });

  it('answers a method its path does not offer with 405 and Allow', async () => {
    const r = await fetch(`${server.url}/oauth2/v1/logout/everywhere`, { method: 'PUT' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.headers.get('x-entered')).toBe('endpoint');
  });

  it('sends every other path of the same segment straight to the endpoints', async () => {
    for (const path of ['/oauth2/v1/logout', '/oauth2/v1/logout/success', '/oauth2/v1/logout/everywhere/more']) {
      const r = await fetch(`${server.url}${path}`, { method: 'POST' });
      expect(await r.json()).toEqual({ endpoint: path });
      expect(r.headers.get('x-entered')).toBe('endpoint');
    }
  });
});

describe('servedPaths', () => {
  it('names the exact parts’ paths, lower-cased, and no segment', () => {
    const exact = new Router();
    exact.post('/OAuth2/v1/logout/everywhere', () => undefined);
    const pages = new Router();
    pages.get('/login', () => undefined);
    expect([...servedPaths([pages, { exact }])]).toEqual(['/oauth2/v1/logout/everywhere']);
    expect(servedSegments([pages, { exact }]) && [...servedSegments([pages, { exact }])!]).toEqual(['login']);
  });

  it('refuses an exact route that is not a literal path', () => {
    const exact = new Router();
    exact.post('/oauth2/v1/logout/:what', () => undefined);
    expect(() => servedPaths([{ exact }])).toThrow('an exact route must be a literal path: /oauth2/v1/logout/:what');
  });
});

describe('servedSegments', () => {
  it('names the first segments of every part, lower-cased, prefixes included', () => {
    const pages = new Router();
    pages.get('/login', () => undefined);
    pages.post('/mfa/push/:id', () => undefined);
    const prefixed = new Router({ prefix: '/Account' });
    prefixed.get('/password', () => undefined);
    const segments = servedSegments([{ segments: ['Admin'], middleware: async () => undefined }, pages, prefixed]);
    expect(segments && [...segments].sort()).toEqual(['account', 'admin', 'login', 'mfa']);
  });

  it('is undefined when a route could match any path', () => {
    const catchAll = new Router();
    catchAll.get('/:page', () => undefined);
    const pages = new Router();
    pages.get('/login', () => undefined);
    expect(servedSegments([pages, catchAll])).toBeUndefined();
  });
});
