import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticAssetRoutes, type StaticAsset } from '../src/index.ts';

const CSS = 'body{margin:0}\n';
const SCRIPT = "console.log('hi');\n";
const ASSETS: StaticAsset[] = [
  { path: '/static/site.css', type: 'text/css', cacheControl: 'public, max-age=3600' },
  { path: '/app/sw.js', type: 'application/javascript', cacheControl: 'no-cache', headers: { 'Service-Worker-Allowed': '/app' } },
];

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

const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('base64url')}"`;

describe('staticAssetRoutes', () => {
  let dir: string;
  let root: URL;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'static-assets-'));
    mkdirSync(join(dir, 'public/static'), { recursive: true });
    mkdirSync(join(dir, 'public/app'), { recursive: true });
    writeFileSync(join(dir, 'public/static/site.css'), CSS);
    writeFileSync(join(dir, 'public/app/sw.js'), SCRIPT);
    writeFileSync(join(dir, 'public/static/unlisted.js'), 'unlisted');
    writeFileSync(join(dir, 'secret.txt'), 'secret');
    root = pathToFileURL(join(dir, 'public/'));
    const routes = staticAssetRoutes(root, ASSETS);
    const app = new Koa();
    app.silent = true;
    app.use(routes.routes());
    app.use(routes.allowedMethods());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves each listed file with its type, cache policy, extra headers and a strong content ETag', async () => {
    const css = await raw(base, 'GET', '/static/site.css');
    expect(css.status).toBe(200);
    expect(css.body).toBe(CSS);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=3600');
    expect(css.headers['content-length']).toBe(String(Buffer.byteLength(CSS)));
    expect(css.headers.etag).toBe(etagOf(CSS));
    expect(css.headers['service-worker-allowed']).toBeUndefined();

    const worker = await raw(base, 'GET', '/app/sw.js');
    expect(worker.status).toBe(200);
    expect(worker.body).toBe(SCRIPT);
    expect(worker.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(worker.headers['cache-control']).toBe('no-cache');
    expect(worker.headers['service-worker-allowed']).toBe('/app');
    expect(worker.headers.etag).toBe(etagOf(SCRIPT));
  });

  it('answers HEAD with the headers and no body', async () => {
    const head = await raw(base, 'HEAD', '/static/site.css');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(CSS)));
    expect(head.headers.etag).toBe(etagOf(CSS));
  });

  it('answers 304 without a body when If-None-Match names the current ETag, 200 otherwise', async () => {
    const fresh = await raw(base, 'GET', '/static/site.css', { 'if-none-match': etagOf(CSS) });
    expect(fresh.status).toBe(304);
    expect(fresh.body).toBe('');
    expect(fresh.headers.etag).toBe(etagOf(CSS));
    expect(fresh.headers['cache-control']).toBe('public, max-age=3600');
    const stale = await raw(base, 'GET', '/static/site.css', { 'if-none-match': etagOf('old') });
    expect(stale.status).toBe(200);
    expect(stale.body).toBe(CSS);
  });

  it('answers other methods 405 through allowedMethods', async () => {
    const post = await raw(base, 'POST', '/static/site.css');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('HEAD, GET');
  });

  it.each([
    '/static/unlisted.js',
    '/static/site.css/',
    '/STATIC/SITE.CSS',
    '/static/site.css.map',
    '/static/../secret.txt',
    '/static/..%2f..%2fsecret.txt',
    '/static/%2e%2e/%2e%2e/secret.txt',
    '/static/..%5csecret.txt',
    '/static/',
    '/static',
  ])('serves nothing else: GET %s is 404', async (path) => {
    const res = await raw(base, 'GET', path);
    expect(res.status).toBe(404);
    expect(res.body).toBe('Not Found');
  });

  it('fails at build time when a listed file is missing, naming it', () => {
    expect(() => staticAssetRoutes(root, [{ path: '/static/missing.css', type: 'text/css', cacheControl: 'no-cache' }])).toThrow(
      `static asset /static/missing.css: cannot read ${new URL('static/missing.css', root).pathname}`,
    );
  });

  it.each(['static/site.css', '/static/../secret.txt', '/static/./site.css', '/static//site.css', '/static/:name', '/static/site.css/', '/static/a b.css'])(
    'refuses the list entry %j',
    (path) => {
      expect(() => staticAssetRoutes(root, [{ path, type: 'text/css', cacheControl: 'no-cache' }])).toThrow(`static asset path not allowed: ${JSON.stringify(path)}`);
    },
  );

  it('refuses a path listed twice and a root that is not a directory URL', () => {
    expect(() => staticAssetRoutes(root, [ASSETS[0]!, ASSETS[0]!])).toThrow('static asset listed twice: /static/site.css');
    expect(() => staticAssetRoutes(new URL('static', root), ASSETS)).toThrow('static asset root must end with "/"');
  });

  it('serves an entry with its own source file at its listed path, and only there', async () => {
    const vendored = join(dir, 'vendor.js');
    writeFileSync(vendored, 'window.vendor = 1;\n');
    const routes = staticAssetRoutes(root, [{ path: '/static/vendor.js', type: 'application/javascript', cacheControl: 'no-cache', source: pathToFileURL(vendored) }]);
    const app = new Koa();
    app.use(routes.routes());
    const one = createServer(app.callback());
    await new Promise<void>((resolve) => one.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(one.address() as AddressInfo).port}`;
    try {
      const res = await raw(at, 'GET', '/static/vendor.js');
      expect(res.status).toBe(200);
      expect(res.body).toBe('window.vendor = 1;\n');
      expect(res.headers.etag).toBe(etagOf('window.vendor = 1;\n'));
      expect((await raw(at, 'GET', '/vendor.js')).status).toBe(404);
    } finally {
      await new Promise((resolve) => one.close(resolve));
    }
  });
});
