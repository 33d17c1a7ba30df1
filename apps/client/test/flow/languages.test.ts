import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, request, startTestAuthServer, untranslatedText, type TestAuthServer } from '@gatehouse/auth/testing';
import { MISSING_MESSAGE_MARKER } from '@gatehouse/html/i18n';
import { de } from '../../src/i18n/de.ts';
import { en } from '../../src/i18n/en.ts';
import { startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';

// The relying party's pages answer in the reader's language: Accept-Language, or the language
// switch's cookie, which wins.
let auth: TestAuthServer;
let api: StubApi;
let client: ClientHarness;

beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
  client = await startClient({ auth, apiUrl: api.url });
});

afterAll(async () => {
  await client?.close();
  await api?.close();
  await auth?.close();
});

const h1 = (html: string) => /<h1>([^<]*)/.exec(html)?.[1];

describe('the relying party in German', () => {
  it('the landing page for Accept-Language: de, its times relative with the UTC time as title', async () => {
    const user = await auth.createUser({ name: 'Ada Lovelace' });
    const jar = new CookieJar();
    await client.login(jar, user);
    const landing = await client.get(jar, '/', { 'accept-language': 'de-DE,de;q=0.9' });
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('<html lang="de">');
    expect(landing.text).toContain('<h1>Willkommen, <span id="user-name">Ada Lovelace</span></h1>');
    expect(landing.text).toMatch(/<dt>Zugriffstoken läuft ab<\/dt><dd id="token-expires"><time datetime="[^"]+Z" data-local="relative" title="\d\d\.\d\d\.\d{4}, \d\d:\d\d UTC">in \d+ Minuten<\/time><\/dd>/);
    expect(landing.text).toContain('<button type="submit" id="logout" class="secondary">Abmelden</button>');
    expect(landing.text).toMatch(/<p><a href="[^"]+" id="manage-account">Ihr Konto verwalten<\/a><\/p>/);
    expect(landing.text).not.toContain(MISSING_MESSAGE_MARKER);
    expect(untranslatedText(landing.text, en, de)).toEqual([]);
    expect(landing.headers.get('content-language')).toBe('de');
    expect(landing.headers.get('vary')).toBe('Accept-Language, Cookie');

    const english = await client.get(jar, '/');
    expect(english.text).toContain('<html lang="en">');
    expect(english.text).toContain('<h1>Welcome, <span id="user-name">Ada Lovelace</span></h1>');
    expect(english.text).toMatch(/<time datetime="[^"]+Z" data-local="relative" title="[A-Z][a-z]{2} \d+, \d{4}, \d+:\d\d [AP]M UTC">in \d+ minutes<\/time>/);
  });

  it('the switch sets the cookie, which wins over Accept-Language, and returns to the page', async () => {
    const jar = new CookieJar();
    const switched = await client.post(jar, '/language', { lang: 'de', return: '/signed-out' });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/signed-out');
    const signedOut = await client.get(jar, '/signed-out', { 'accept-language': 'en' });
    expect(signedOut.text).toContain('<html lang="de">');
    expect(h1(signedOut.text)).toBe('Abgemeldet');
    expect(signedOut.text).toContain(`Sie sind von ${client.config.clientId} abgemeldet.`);
    expect(signedOut.text).toContain('<button type="submit" name="lang" value="en" lang="en" class="link-button" id="language-en">English</button>');

    const away = await client.post(jar, '/language', { lang: 'en', return: '//evil.example/' });
    expect(away.status).toBe(303);
    expect(away.location).toBe('/');
    expect(h1((await client.get(jar, '/signed-out', { 'accept-language': 'de' })).text)).toBe('Signed out');

    const unknown = await client.post(new CookieJar(), '/language', { lang: 'fr' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('<code id="error-code">invalid_request</code>');
  });

  it('the error pages: not found in German', async () => {
    const missing = await client.get(new CookieJar(), '/no-such-page', { 'accept-language': 'de' });
    expect(missing.status).toBe(404);
    expect(h1(missing.text)).toBe('Nicht gefunden');
    expect(missing.text).toContain('Unter dieser Adresse gibt es keine Seite.');
    expect(missing.text).toContain('<a class="button" href="/" id="next-action">Zurück zur Anwendung</a>');
    expect(untranslatedText(missing.text, en, de)).toEqual([]);
  });

  it('the signed-out page and a refused method are German, with no text of the English catalogue', async () => {
    const signedOut = await client.get(new CookieJar(), '/signed-out', { 'accept-language': 'de' });
    expect(signedOut.status).toBe(200);
    expect(signedOut.text).toContain('<html lang="de">');
    const refused = await request(new CookieJar({ 'accept-language': 'de' }), `${client.url}/signed-out`, { method: 'DELETE' });
    expect(refused.status).toBe(405);
    for (const page of [signedOut, refused]) {
      expect(page.text).not.toContain(MISSING_MESSAGE_MARKER);
      expect(untranslatedText(page.text, en, de)).toEqual([]);
    }
  });
});
