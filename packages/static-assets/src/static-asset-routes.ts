/**
 * Same-origin files a page loads (scripts, styles, icons), served from a fixed allow-list. Rules:
 * - only the listed URL paths are served, each from the file at the same path under `root`, or
 *   from the asset's own `source` file when the list names one (a vendored browser bundle in
 *   node_modules); the router matches them exactly (case-sensitive, no trailing slash), so no
 *   requested path ever reaches the file system and `..` or encoded separators can only miss (the app's 404);
 * - a path is `/segment/…` where every segment starts with a letter or digit and holds only
 *   letters, digits, `.`, `_` and `-`; anything else in the list is a programming error, thrown
 *   when the routes are built;
 * - every file is read once, when the routes are built; a missing file fails the start and names
 *   the file (a build that lost its assets never serves a page without its script);
 * - each answer carries the listed Content-Type and Cache-Control, any extra listed headers, and
 *   a strong ETag (SHA-256 of the bytes); a matching If-None-Match gets 304 without a body;
 * - GET and HEAD only; the app's `allowedMethods()` answers other methods (405 with Allow).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import type { Context } from 'koa';

/** One entry of an app's allow-list. */
export interface StaticAsset {
  /** The URL path, also the file's path under the root, e.g. `/static/site.css`. */
  readonly path: string;
  /** The Content-Type, as Koa's `ctx.type` takes it (`text/css`, `application/javascript`). */
  readonly type: string;
  /** The Cache-Control header, e.g. `public, max-age=3600` or `no-cache`. */
  readonly cacheControl: string;
  /** Extra response headers (e.g. `Service-Worker-Allowed`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The file to serve when it is not at `path` under the root (a `file:` URL fixed in code). */
  readonly source?: URL;
}

const ASSET_PATH = /^(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)+$/;

interface LoadedAsset extends StaticAsset {
  readonly body: Buffer;
  readonly etag: string;
}

function load(root: URL, asset: StaticAsset): LoadedAsset {
  if (!ASSET_PATH.test(asset.path)) throw new TypeError(`static asset path not allowed: ${JSON.stringify(asset.path)}`);
  const file = asset.source ?? new URL(asset.path.slice(1), root);
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (cause) {
    throw new Error(`static asset ${asset.path}: cannot read ${file.pathname}`, { cause });
  }
  return { ...asset, body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
}

function serve(asset: LoadedAsset) {
  return function serveStaticAsset(ctx: Context): void {
    ctx.status = 200;
    ctx.type = asset.type;
    ctx.set('Cache-Control', asset.cacheControl);
    ctx.set('ETag', asset.etag);
    for (const [name, value] of Object.entries(asset.headers ?? {})) ctx.set(name, value);
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = asset.body;
  };
}

/**
 * The routes serving `assets`, whose files are read now from under `root` (a directory URL
 * ending in `/`). Mount `routes()` and the app's usual `allowedMethods()`.
 */
export function staticAssetRoutes(root: URL, assets: readonly StaticAsset[]): Router {
  if (!root.pathname.endsWith('/')) throw new TypeError(`static asset root must end with "/": ${root.href}`);
  const router = new Router({ strict: true, sensitive: true });
  const seen = new Set<string>();
  for (const asset of assets) {
    if (seen.has(asset.path)) throw new TypeError(`static asset listed twice: ${asset.path}`);
    seen.add(asset.path);
    router.get(asset.path, serve(load(root, asset)));
  }
  return router;
}
