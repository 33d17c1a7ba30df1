import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollMessage, listMessage, answerMessage } from '../../src/devices/signed-request.ts';
import { AUTH_STATIC_ASSETS, PUBLIC_DIR } from '../../src/views/static-assets.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';

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

const fileOf = (path: string) => {
  const asset = AUTH_STATIC_ASSETS.find((a) => a.path === path);
  return readFileSync(asset?.source ?? new URL(path.slice(1), PUBLIC_DIR));
};
const etagOf = (path: string) => `"${createHash('sha256').update(fileOf(path)).digest('base64url')}"`;

describe('the static-assets route of the authorization server', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('lists exactly the files the pages load, each at its URL under public/', () => {
    expect(AUTH_STATIC_ASSETS.map((asset) => asset.path)).toEqual([
      '/static/gatehouse.css',
      '/static/console.css',
      '/static/favicon.svg',
      '/static/logout.js',
      '/static/form-post.js',
      '/static/push-wait.js',
      '/static/countdown.js',
      '/static/enroll-wait.js',
      '/static/passkey.js',
      '/static/console-copy.js',
      '/static/copy-codes.js',
      '/static/local-time.js',
      '/static/simplewebauthn-browser.js',
      '/authenticator/app.js',
      '/authenticator/signed-message.js',
      '/authenticator/sw.js',
      '/authenticator/icon.svg',
    ]);
  });

  it.each([
    ['/static/gatehouse.css', 'text/css; charset=utf-8', 'public, max-age=3600'],
    ['/static/console.css', 'text/css; charset=utf-8', 'public, max-age=3600'],
    ['/static/favicon.svg', 'image/svg+xml', 'public, max-age=86400'],
    ['/static/logout.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/form-post.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/push-wait.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/countdown.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/enroll-wait.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/passkey.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/console-copy.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/copy-codes.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/local-time.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/static/simplewebauthn-browser.js', 'application/javascript; charset=utf-8', 'public, max-age=3600'],
    ['/authenticator/app.js', 'application/javascript; charset=utf-8', 'no-cache'],
    ['/authenticator/signed-message.js', 'application/javascript; charset=utf-8', 'no-cache'],
    ['/authenticator/sw.js', 'application/javascript; charset=utf-8', 'no-cache'],
    ['/authenticator/icon.svg', 'image/svg+xml', 'public, max-age=3600'],
  ])('GET %s: 200, %s, Cache-Control %s, a content ETag and the page security headers', async (path, type, cache) => {
    const res = await raw(server.issuer, 'GET', path);
    expect(res.status).toBe(200);
    expect(res.body).toBe(fileOf(path).toString('utf8'));
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe(cache);
    expect(res.headers.etag).toBe(etagOf(path));
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['service-worker-allowed']).toBe(path === '/authenticator/sw.js' ? '/authenticator' : undefined);

    const again = await raw(server.issuer, 'GET', path, { 'if-none-match': etagOf(path) });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it.each([
    '/static/nope.js',
    '/static/..%2fpackage.json',
    '/static/..%2f..%2fpackage.json',
    '/static/../package.json',
    '/static/%2e%2e/package.json',
    '/authenticator/..%2f..%2fpackage.json',
    '/authenticator/signed-message.d.ts',
    '/authenticator/app.js/',
    '/Static/gatehouse.css',
    '/public/static/gatehouse.css',
    '/static/',
  ])('GET %s is 404 (only listed files are served)', async (path) => {
    const res = await raw(server.issuer, 'GET', path);
    expect(res.status).toBe(404);
    expect(res.body).toContain('<p class="muted">Error code: <code>not_found</code>');
  });

  it('serves @simplewebauthn/browser from its installed package (its UMD bundle, no CDN)', async () => {
    const res = await raw(server.issuer, 'GET', '/static/simplewebauthn-browser.js');
    expect(res.body.startsWith('/* [@simplewebauthn/browser@13.')).toBe(true);
    expect(res.body).toContain('SimpleWebAuthnBrowser');
    expect(res.headers['content-security-policy']).not.toContain('http');
  });

  it('every page links the favicon, an SVG of a few hundred bytes', async () => {
    const login = await raw(server.issuer, 'GET', '/account/forgot-password');
    expect(login.body).toContain('<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">');
    const notFound = await raw(server.issuer, 'GET', '/nope');
    expect(notFound.body).toContain('<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">');
    const icon = fileOf('/static/favicon.svg').toString('utf8');
    expect(icon.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">')).toBe(true);
    expect(icon.length).toBeLessThan(1024);
  });

  it('answers other methods 405 with Allow, as before', async () => {
    const res = await raw(server.issuer, 'POST', '/authenticator/app.js');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('HEAD, GET');
  });

  it('the page loads the authenticator as a module script, and the served module builds the messages the server verifies', async () => {
    const page = await raw(server.issuer, 'GET', '/authenticator');
    expect(page.body).toContain('<script type="module" src="/authenticator/app.js"></script>');
    const served = await raw(server.issuer, 'GET', '/authenticator/signed-message.js');
    const module = (await import(`data:text/javascript,${encodeURIComponent(served.body)}`)) as typeof import('../../public/authenticator/signed-message.js');
    expect(module.enrollMessage('c0de')).toBe(enrollMessage('c0de'));
    expect(module.listMessage('dev', '1', 'n')).toBe(listMessage('dev', '1', 'n'));
    expect(module.answerMessage('tx', 'deny', '', 'dev')).toBe(answerMessage('tx', 'deny', '', 'dev'));
  });
});
