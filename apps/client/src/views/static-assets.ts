/**
 * The client's same-origin files (the CSP allows nothing else, and no script at all): its
 * stylesheet and its favicon, real files under public/ at the path of its URL. This list is the only way in
 * (@gatehouse/static-assets has the rules).
 */
import { staticAssetRoutes, type StaticAsset } from '@gatehouse/static-assets';

/** public/ of this package: two levels above this file both in src/views/ and in dist/views/. */
export const PUBLIC_DIR = new URL('../../public/', import.meta.url);

export const CLIENT_STATIC_ASSETS: readonly StaticAsset[] = [
  { path: '/static/client.css', type: 'text/css', cacheControl: 'public, max-age=3600' },
  // The favicon changes with a release at most, and every page of every tab asks for it.
  { path: '/static/favicon.svg', type: 'image/svg+xml', cacheControl: 'public, max-age=86400' },
];

/** The one route serving CLIENT_STATIC_ASSETS; reads the files now (call once, at start). */
export const clientStaticAssets = () => staticAssetRoutes(PUBLIC_DIR, CLIENT_STATIC_ASSETS);
