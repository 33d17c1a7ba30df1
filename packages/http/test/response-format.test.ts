import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseFormat } from '../src/index.ts';
import { serve } from './serve.ts';

describe('responseFormat', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const app = new Koa();
    app.use((ctx) => {
      if (ctx.path === '/answered-json') ctx.body = { already: true };
      const format = responseFormat(ctx);
      ctx.type = 'text/plain';
      ctx.body = format;
    });
    server = await serve(app);
  });
  afterAll(() => server.close());

  const format = async (init: RequestInit & { path?: string } = {}) => (await fetch(`${server.url}${init.path ?? '/'}`, init)).text();

  it.each([
    ['no Accept', {}, 'html'],
    ['a browser Accept', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, 'html'],
    ['*/*', { accept: '*/*' }, 'html'],
    ['application/json', { accept: 'application/json' }, 'json'],
    ['JSON preferred over HTML', { accept: 'text/html;q=0.5, application/json' }, 'json'],
    ['HTML preferred over JSON', { accept: 'application/json;q=0.5, text/html' }, 'html'],
    ['neither', { accept: 'image/png' }, 'html'],
  ])('GET with %s → %s', async (_name, headers, expected) => {
    expect(await format({ headers })).toBe(expected);
  });

  it('a JSON request body → json, whatever Accept says', async () => {
    expect(await format({ method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: '{}' })).toBe('json');
  });

  it('a form body follows Accept', async () => {
    expect(await format({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' })).toBe('html');
    expect(await format({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: 'a=1' })).toBe('json');
  });

  it('a response that is already JSON stays JSON', async () => {
    expect(await format({ path: '/answered-json', headers: { accept: 'text/html' } })).toBe('json');
  });
});
