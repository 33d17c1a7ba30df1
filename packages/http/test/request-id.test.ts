import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSafeRequestId, requestId, type RequestIdState } from '../src/index.ts';
import { serve } from './serve.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestId', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const app = new Koa<RequestIdState>();
    app.use(requestId);
    app.use((ctx) => {
      ctx.body = { seen: ctx.state.requestId };
    });
    server = await serve(app);
  });
  afterAll(() => server.close());

  it('keeps a well-formed incoming id and echoes it', async () => {
    const r = await fetch(server.url, { headers: { 'x-request-id': 'gw-123:abc.def_9' } });
    expect(r.headers.get('x-request-id')).toBe('gw-123:abc.def_9');
    expect(await r.json()).toEqual({ seen: 'gw-123:abc.def_9' });
  });

  it.each([['has space'], ['<script>'], ['x'.repeat(129)], ['a/b'], ['ünïcode']])('replaces %j with a new UUID', async (incoming) => {
    const r = await fetch(server.url, { headers: { 'x-request-id': encodeURI(incoming) === incoming ? incoming : encodeURIComponent(incoming) } });
    const id = r.headers.get('x-request-id')!;
    expect(id).toMatch(UUID);
    expect(await r.json()).toEqual({ seen: id });
  });

  it('creates one when there is none, different per request', async () => {
    const [a, b] = await Promise.all([fetch(server.url), fetch(server.url)]);
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('accepts exactly 1–128 characters of [A-Za-z0-9._:-]', () => {
    expect(isSafeRequestId('A-z.0_9:')).toBe(true);
    expect(isSafeRequestId('x'.repeat(128))).toBe(true);
    expect(isSafeRequestId('x'.repeat(129))).toBe(false);
    expect(isSafeRequestId('')).toBe(false);
    expect(isSafeRequestId('a b')).toBe(false);
    expect(isSafeRequestId('a\nb')).toBe(false);
  });
});
