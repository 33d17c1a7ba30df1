/**
 * The authorization server's same-origin files (the CSP allows nothing else): the stylesheet, the
 * page scripts, and the web authenticator (module script, the signed-message module it shares
 * with the server, service worker, icon; its manifest is in the request's language,
 * authenticator/manifest.ts). They live as real files under public/, at
 * the path of their URL; this list is the only way in (@gatehouse/static-assets has the rules).
 * The WebAuthn pages also load @simplewebauthn/browser's UMD bundle (global
 * `SimpleWebAuthnBrowser`), served from its installed package, never from a CDN.
 * Cache policy: the authenticator's scripts are `no-cache` (revalidated by ETag on each load, so
 * the page, its modules and the server never disagree on the message format); the rest is
 * cached for an hour, the favicon for a day.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { staticAssetRoutes, type StaticAsset } from '@gatehouse/static-assets';

/** public/ of this package: two levels above this file both in src/views/ and in dist/views/. */
export const PUBLIC_DIR = new URL('../../public/', import.meta.url);

const HOUR = 'public, max-age=3600';
/** The favicon changes with a release at most, and every page of every tab asks for it. */
const DAY = 'public, max-age=86400';

/** @simplewebauthn/browser's UMD bundle, next to the CommonJS entry the package exports. */
const WEBAUTHN_BUNDLE = new URL('../dist/bundle/index.umd.min.js', pathToFileURL(createRequire(import.meta.url).resolve('@simplewebauthn/browser')));
const JS = 'application/javascript';

export const AUTH_STATIC_ASSETS: readonly StaticAsset[] = [
  { path: '/static/gatehouse.css', type: 'text/css', cacheControl: HOUR },
  { path: '/static/console.css', type: 'text/css', cacheControl: HOUR },
  { path: '/static/favicon.svg', type: 'image/svg+xml', cacheControl: DAY },
  { path: '/static/logout.js', type: JS, cacheControl: HOUR },
  { path: '/static/form-post.js', type: JS, cacheControl: HOUR },
  { path: '/static/push-wait.js', type: JS, cacheControl: HOUR },
  { path: '/static/countdown.js', type: JS, cacheControl: HOUR },
  { path: '/static/enroll-wait.js', type: JS, cacheControl: HOUR },
  { path: '/static/passkey.js', type: JS, cacheControl: HOUR },
  { path: '/static/console-copy.js', type: JS, cacheControl: HOUR },
  { path: '/static/copy-codes.js', type: JS, cacheControl: HOUR },
  { path: '/static/local-time.js', type: JS, cacheControl: HOUR },
  { path: '/static/simplewebauthn-browser.js', type: JS, cacheControl: HOUR, source: WEBAUTHN_BUNDLE },
  { path: '/authenticator/app.js', type: JS, cacheControl: 'no-cache' },
  { path: '/authenticator/signed-message.js', type: JS, cacheControl: 'no-cache' },
  // The worker controls /authenticator itself, which lies outside its default scope /authenticator/.
  { path: '/authenticator/sw.js', type: JS, cacheControl: 'no-cache', headers: { 'Service-Worker-Allowed': '/authenticator' } },
  { path: '/authenticator/icon.svg', type: 'image/svg+xml', cacheControl: HOUR },
];

/** The one route serving AUTH_STATIC_ASSETS; reads the files now (call once, at start). */
export const authStaticAssets = () => staticAssetRoutes(PUBLIC_DIR, AUTH_STATIC_ASSETS);
