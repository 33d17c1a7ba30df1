/**
 * Every answer of the relying party carries its security headers, error pages included: a 4xx
 * page (no such page) and a 5xx page (a storage failure the app did not expect).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { startClient, type ClientHarness } from '../support/client-harness.ts';

let auth: TestAuthServer;
let client: ClientHarness;

beforeAll(async () => {
  auth = await startTestAuthServer();
  client = await startClient({ auth });
});
afterAll(async () => {
  await client?.close();
  await auth?.close();
});

const securityHeaders = (headers: Headers) => ({
  csp: headers.get('content-security-policy'),
  nosniff: headers.get('x-content-type-options'),
  referrer: headers.get('referrer-policy'),
  frame: headers.get('x-frame-options'),
  cache: headers.get('cache-control'),
  type: headers.get('content-type'),
});

describe('security headers on error pages', () => {
  const expected = () => ({
    csp: `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' ${auth.issuer}; frame-ancestors 'none'; base-uri 'none'`,
    nosniff: 'nosniff',
    referrer: 'no-referrer',
    frame: 'DENY',
    cache: 'no-store',
    type: 'text/html; charset=utf-8',
  });

  it('a 404 page has them', async () => {
    const page = await client.get(new CookieJar(), '/no-such-page');
    expect(page.status).toBe(404);
    expect(page.text).toContain('There is no page at this address.');
    expect(securityHeaders(page.headers)).toEqual(expected());
  });

  it('a 405 page has them', async () => {
    const page = await client.post(new CookieJar(), '/', { a: '1' });
    expect(page.status).toBe(405);
    expect(securityHeaders(page.headers)).toEqual(expected());
  });

  it('a 500 page (an unexpected storage failure) has them, and no internals', async () => {
    const { logins } = client.app.stores;
    const save = logins.save;
    logins.save = async () => {
      throw new Error('login store exploded');
    };
    try {
      const page = await client.get(new CookieJar(), '/');
      expect(page.status).toBe(500);
      expect(page.text).toContain('server_error');
      expect(page.text).toContain(page.headers.get('x-request-id')!);
      expect(page.text).not.toContain('exploded');
      expect(securityHeaders(page.headers)).toEqual(expected());
    } finally {
      logins.save = save;
    }
  });

  it('the stylesheet keeps its own caching', async () => {
    const css = await client.get(new CookieJar(), '/static/client.css');
    expect(securityHeaders(css.headers)).toEqual({ ...expected(), cache: 'public, max-age=3600', type: 'text/css; charset=utf-8' });
  });
});
