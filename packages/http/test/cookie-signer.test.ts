import { createHmac } from 'node:crypto';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { cookieSigner } from '../src/cookie-signer.ts';
import { serve } from './serve.ts';

/** keygrip's default signature, worked out here independently: HMAC-SHA1, base64 with + / = replaced. */
const keygripStyle = (key: string, data: string) =>
  createHmac('sha1', key).update(data).digest('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, '');

describe('cookieSigner', () => {
  it('signs with the first key as keygrip does, so existing cookies stay valid', () => {
    const signer = cookieSigner(['current-key', 'old-key']);
    expect(signer.sign('gh.session=abc')).toBe(keygripStyle('current-key', 'gh.session=abc'));
    expect(signer.sign('gh.session=abc')).toMatch(/^[A-Za-z0-9_-]{27}$/);
  });

  it('answers which key signed a value, -1 for none', () => {
    const signer = cookieSigner(['current-key', 'old-key']);
    expect(signer.index('a=1', keygripStyle('current-key', 'a=1'))).toBe(0);
    expect(signer.index('a=1', keygripStyle('old-key', 'a=1'))).toBe(1);
    expect(signer.index('a=1', keygripStyle('other-key', 'a=1'))).toBe(-1);
    expect(signer.index('a=2', keygripStyle('current-key', 'a=1'))).toBe(-1);
    expect(signer.verify('a=1', keygripStyle('old-key', 'a=1'))).toBe(true);
    expect(signer.verify('a=1', 'x')).toBe(false);
  });

  it('refuses digests of another length or type without throwing', () => {
    const signer = cookieSigner(['k']);
    const good = signer.sign('a=1');
    expect(signer.index('a=1', `${good}A`)).toBe(-1);
    expect(signer.index('a=1', good.slice(1))).toBe(-1);
    expect(signer.index('a=1', '')).toBe(-1);
    expect(signer.index('a=1', undefined as unknown as string)).toBe(-1);
    expect(signer.index('a=1', 'é'.repeat(27))).toBe(-1);
  });

  it('needs at least one key and no empty key', () => {
    expect(() => cookieSigner([])).toThrow('cookie keys: at least one, none empty');
    expect(() => cookieSigner(['a', ''])).toThrow('cookie keys: at least one, none empty');
  });

  it('works as app.keys for Koa signed cookies, including a rotation', async () => {
    const app = new Koa();
    app.keys = cookieSigner(['new', 'old']);
    app.use((ctx) => {
      if (ctx.path === '/set') {
        ctx.cookies.set('s', 'v1', { signed: true });
        ctx.body = 'set';
      } else ctx.body = ctx.cookies.get('s', { signed: true }) ?? 'none';
    });
    const { url, close } = await serve(app);
    try {
      const set = await fetch(`${url}/set`);
      const cookies = set.headers.getSetCookie().map((line) => line.split(';')[0]!);
      expect(cookies).toEqual([`s=v1`, `s.sig=${keygripStyle('new', 's=v1')}`]);
      const read = await fetch(`${url}/get`, { headers: { cookie: cookies.join('; ') } });
      expect(await read.text()).toBe('v1');
      // Signed with the old key: still accepted, and re-signed with the current one.
      const old = await fetch(`${url}/get`, { headers: { cookie: `s=v1; s.sig=${keygripStyle('old', 's=v1')}` } });
      expect(await old.text()).toBe('v1');
      expect(old.headers.getSetCookie().map((line) => line.split(';')[0])).toEqual([`s.sig=${keygripStyle('new', 's=v1')}`]);
      const forged = await fetch(`${url}/get`, { headers: { cookie: `s=v2; s.sig=${keygripStyle('old', 's=v1')}` } });
      expect(await forged.text()).toBe('none');
    } finally {
      await close();
    }
  });
});
