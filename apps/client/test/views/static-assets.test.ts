import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { CLIENT_STATIC_ASSETS, PUBLIC_DIR } from '../../src/views/static-assets.ts';
import { startClient, type ClientHarness } from '../support/client-harness.ts';

/** A raw request, so the path reaches the server exactly as written (fetch would normalise `..`). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const css = readFileSync(new URL('static/client.css', PUBLIC_DIR));
const cssEtag = `"${createHash('sha256').update(css).digest('base64url')}"`;

describe('the static-assets route of the client', () => {
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

  it('lists only the stylesheet and the favicon (the pages of the client run no script)', () => {
    expect(CLIENT_STATIC_ASSETS.map((asset) => asset.path)).toEqual(['/static/client.css', '/static/favicon.svg']);
  });

  it('GET /static/favicon.svg: 200, image/svg+xml, cached a day, a content ETag; every page links it', async () => {
    const icon = readFileSync(new URL('static/favicon.svg', PUBLIC_DIR));
    const res = await raw(client.url, 'GET', '/static/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.body).toBe(icon.toString('utf8'));
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers.etag).toBe(`"${createHash('sha256').update(icon).digest('base64url')}"`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    for (const path of ['/signed-out', '/nope']) {
      const page = await raw(client.url, 'GET', path);
      expect(page.body).toContain('<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">');
    }
  });

  it('GET /static/client.css: 200, text/css, cached an hour, a content ETag, the security headers; If-None-Match → 304', async () => {
    const res = await raw(client.url, 'GET', '/static/client.css');
    expect(res.status).toBe(200);
    expect(res.body).toBe(css.toString('utf8'));
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers.etag).toBe(cssEtag);
    expect(res.headers['content-security-policy']).toContain("style-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await raw(client.url, 'GET', '/static/client.css', { 'if-none-match': cssEtag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it.each(['/static/nope.js', '/static/..%2fpackage.json', '/static/../package.json', '/static/%2e%2e/%2e%2e/package.json', '/static/client.css/', '/static/CLIENT.CSS'])(
    'GET %s is the 404 page (only listed files are served)',
    async (path) => {
      const res = await raw(client.url, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('There is no page at this address.');
    },
  );

  it('answers POST with the 405 page, as before', async () => {
    const res = await raw(client.url, 'POST', '/static/client.css');
    expect(res.status).toBe(405);
    expect(res.body).toContain('This page does not accept that method.');
  });
});
