/**
 * The pages a German reader meets, over HTTP: each is German (`<html lang="de">`), has no missing
 * message and shows no text of the English catalogue that German words differently. The sources
 * are checked for literal text by test/i18n/page-sources.test.ts; this catches a page that takes
 * its text from the catalogue but in the wrong language, or from somewhere else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_MESSAGE_MARKER } from '@gatehouse/html/i18n';
import { de } from '../../src/i18n/de.ts';
import { en } from '../../src/i18n/en.ts';
import { untranslatedText } from '../support/untranslated.ts';
import { authorizeUrl, CookieJar, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

describe('the pages a German reader meets', () => {
  let server: TestAuthServer;
  const german = { 'accept-language': 'de-DE,de;q=0.9' };
  const jar = new CookieJar(german);

  beforeAll(async () => {
    server = await startServer();
    const user = await server.createUser();
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
  });
  afterAll(() => server.close());

  it('the German catalogue words the page texts differently from the English one', () => {
    expect(untranslatedText('<p>Sign in</p>', en, de)).toEqual(['Sign in']);
    expect(untranslatedText('<p>Anmelden</p><p class="brand">Gatehouse</p><label>E-Mail-Adresse</label>', en, de)).toEqual([]);
  });

  // Each page as a signed-in reader meets it, or (`signedIn` false) one who is not signed in.
  const pages: [string, () => string, number, boolean?][] = [
    ['the login page', () => authorizeUrl(server), 200, false],
    ['Profile', () => `${server.issuer}/account`, 200],
    ['Security', () => `${server.issuer}/account/security`, 200],
    ['Sessions', () => `${server.issuer}/account/sessions`, 200],
    ['Apps', () => `${server.issuer}/account/apps`, 200],
    ['new recovery codes', () => `${server.issuer}/account/security/recovery-codes`, 200],
    ['signing out the other sessions', () => `${server.issuer}/account/sessions/sign-out-others`, 200],
    ['forgot password', () => `${server.issuer}/account/forgot-password`, 200],
    ['a password-reset link not valid', () => `${server.issuer}/account/password-reset/${'A'.repeat(43)}`, 410, false],
    ['an e-mail link not valid', () => `${server.issuer}/account/email/verify/${'A'.repeat(43)}`, 410],
    ['connecting a device', () => `${server.issuer}/activate`, 200],
    ['the web authenticator', () => `${server.issuer}/authenticator`, 200],
    ['not found', () => `${server.issuer}/no-such-page`, 404],
    ['an unknown application', () => authorizeUrl(server, { clientId: 'no-such-app' }), 400],
    ['a sign-in request the library refuses', () => `${server.issuer}/oauth2/v1/authorize?response_type=code&scope=openid`, 400],
  ];

  it.each(pages)('%s', async (_, url, status, signedIn = true) => {
    const page = await request(signedIn ? jar : new CookieJar(german), url(), { headers: { accept: 'text/html' } });
    expect(page.status).toBe(status);
    expect(page.text).toContain('<html lang="de">');
    expect(page.text).not.toContain(MISSING_MESSAGE_MARKER);
    expect(untranslatedText(page.text, en, de)).toEqual([]);
  });
});
