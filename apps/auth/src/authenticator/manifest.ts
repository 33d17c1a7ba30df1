/**
 * The web authenticator's manifest (GET /authenticator/manifest.webmanifest). Rules:
 * - its words (name, short_name, description) and `lang` are the request's language, chosen as a
 *   page's (i18n/page-language.ts: the language switch's cookie, then Accept-Language), with
 *   `Content-Language` and `Vary: Accept-Language, Cookie`; the page links it with
 *   `crossorigin="use-credentials"`, since a manifest is otherwise fetched without cookies and the
 *   switch would not count;
 * - the rest (start_url, scope, display, colours, icon) is the same in every language;
 * - cached for an hour, like the static files beside it.
 */
import type { Context } from 'koa';
import { pageLanguage, type PageLanguage } from '../i18n/page-language.ts';

export const MANIFEST_PATH = '/authenticator/manifest.webmanifest';

export function authenticatorManifest(language: PageLanguage): Record<string, unknown> {
  return {
    name: language.t('authenticator.brand'),
    short_name: language.t('layout.brand'),
    description: language.t('authenticator.manifestDescription'),
    lang: language.locale,
    dir: 'ltr',
    start_url: '/authenticator',
    scope: '/authenticator',
    display: 'standalone',
    background_color: '#f3f4f6',
    theme_color: '#4f46e5',
    icons: [{ src: '/authenticator/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
  };
}

export function serveAuthenticatorManifest(ctx: Context): void {
  const body = authenticatorManifest(pageLanguage(ctx));
  ctx.type = 'application/manifest+json';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = JSON.stringify(body);
}
