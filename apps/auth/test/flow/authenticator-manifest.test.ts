/**
 * The web authenticator's manifest is in the request's language, chosen as a page's: the
 * language switch's cookie, then Accept-Language, else English; it says which
 * (Content-Language, `lang`) and what chose it (Vary: Accept-Language, Cookie). The page links it
 * with credentials, so the switch's cookie goes with the manifest's request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, request, startServer, type TestAuthServer } from '../support/flow.ts';

const SAME = {
  start_url: '/authenticator',
  scope: '/authenticator',
  display: 'standalone',
  background_color: '#f3f4f6',
  theme_color: '#4f46e5',
  icons: [{ src: '/authenticator/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
};

describe('the web authenticator’s manifest', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const manifest = (headers: Record<string, string> = {}) => request(new CookieJar(headers), `${server.issuer}/authenticator/manifest.webmanifest`);

  it('English by default: 200, application/manifest+json, cached for an hour, varying by Accept-Language and Cookie', async () => {
    const res = await manifest();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/manifest+json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('content-language')).toBe('en');
    expect(res.headers.get('vary')).toBe('Accept-Language, Cookie');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.json()).toEqual({ name: 'Gatehouse Authenticator', short_name: 'Gatehouse', description: 'Approve Gatehouse sign-ins on this device.', lang: 'en', dir: 'ltr', ...SAME });
  });

  it('German for a German browser', async () => {
    const res = await manifest({ 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-language')).toBe('de');
    expect(res.json()).toEqual({ name: 'Gatehouse Authenticator', short_name: 'Gatehouse', description: 'Gatehouse-Anmeldungen auf diesem Gerät bestätigen.', lang: 'de', dir: 'ltr', ...SAME });
  });

  it('the language switch’s cookie wins over the browser’s language', async () => {
    const german = await manifest({ 'accept-language': 'en-US', cookie: 'gatehouse.lang=de' });
    expect(german.json()).toMatchObject({ description: 'Gatehouse-Anmeldungen auf diesem Gerät bestätigen.', lang: 'de' });
    const english = await manifest({ 'accept-language': 'de-DE', cookie: 'gatehouse.lang=en' });
    expect(english.json()).toMatchObject({ description: 'Approve Gatehouse sign-ins on this device.', lang: 'en' });
  });

  it('the page links it with credentials, so that cookie is sent', async () => {
    const page = await request(new CookieJar(), `${server.issuer}/authenticator`);
    expect(page.text).toContain('<link rel="manifest" href="/authenticator/manifest.webmanifest" crossorigin="use-credentials">');
  });
});
