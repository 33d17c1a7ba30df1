import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLog, requestId, type RequestIdState } from '../src/index.ts';
import { serve } from './serve.ts';

interface State extends RequestIdState {
  client?: string;
  accessLogPath?: string;
}

describe('accessLog', () => {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const logger = {
    info: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'info', fields, message }),
    debug: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'debug', fields, message }),
    error: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'error', fields, message }),
  };
  let now = 1_000;
  let server: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    const app = new Koa<State>();
    app.use(requestId);
    app.use(accessLog<State>(logger, { clock: () => now, fields: (ctx) => ({ client_id: ctx.state.client, status: 'not replaced', path: 'not replaced' }) }));
    app.use((ctx) => {
      now += 12.4;
      ctx.state.client = 'app-one';
      if (ctx.path === '/boom') throw new Error('unexpected');
      if (ctx.path === '/teapot') ctx.throw(418);
      if (ctx.path === '/missing') return;
      if (ctx.path.startsWith('/reset/')) ctx.state.accessLogPath = '/reset/:token';
      if (ctx.path === '/mfa/verify') {
        // The auth server resumes an authorization this way (interactions/mfa/complete-login.ts).
        ctx.method = 'GET';
        ctx.url = '/oauth2/v1/authorize/uid-1';
      }
      ctx.body = 'ok';
    });
    server = await serve(app);
  });
  afterAll(() => server.close());

  const last = () => lines.at(-1)!;

  it('writes one info line with the shared fields, the app fields, and never the query string', async () => {
    lines.length = 0;
    await fetch(`${server.url}/items?code=secret-code&state=s1`, { headers: { 'x-request-id': 'req-1' } });
    expect(lines).toHaveLength(1);
    expect(last()).toEqual({
      level: 'info',
      message: 'request',
      fields: { event: 'http_request', request_id: 'req-1', method: 'GET', path: '/items', status: 200, duration_ms: 12, client_id: 'app-one' },
    });
    expect(JSON.stringify(lines)).not.toContain('secret-code');
  });

  it('logs a 4xx at debug level', async () => {
    await fetch(`${server.url}/missing`, { method: 'POST', headers: { 'x-request-id': 'req-2' } });
    expect(last()).toMatchObject({ level: 'debug', fields: { request_id: 'req-2', method: 'POST', path: '/missing', status: 404 } });
  });

  it('logs an escaping error with its status (4xx) or 500, at the matching level', async () => {
    await fetch(`${server.url}/teapot`);
    expect(last()).toMatchObject({ level: 'debug', fields: { status: 418 } });
    const r = await fetch(`${server.url}/boom`);
    expect(r.status).toBe(500);
    expect(last()).toMatchObject({ level: 'error', fields: { path: '/boom', status: 500 } });
  });

  it('names the route that was asked for, even when a handler rewrites the method and path to run another', async () => {
    await fetch(`${server.url}/mfa/verify`, { method: 'POST', headers: { 'x-request-id': 'req-3' } });
    expect(last()).toMatchObject({ level: 'info', fields: { request_id: 'req-3', method: 'POST', path: '/mfa/verify', status: 200 } });
  });

  it('logs the pattern a handler names instead of a path that carries a secret', async () => {
    await fetch(`${server.url}/reset/one-time-token-4711`, { headers: { 'x-request-id': 'req-4' } });
    expect(last()).toMatchObject({ level: 'info', fields: { request_id: 'req-4', method: 'GET', path: '/reset/:token', status: 200 } });
    expect(JSON.stringify(lines)).not.toContain('one-time-token-4711');
  });
});
