import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_MESSAGE_MARKER } from '@gatehouse/html/i18n';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

// The pages answer in the reader's language: Accept-Language, or the language switch's cookie,
// which wins; the headers say which language and what chose it.
describe('the pages in German and English', () => {
  let server: TestAuthServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startServer();
    user = await server.createUser();
  });
  afterAll(() => server.close());

  const page = (jar: CookieJar, url: string, language?: string) =>
    request(jar, url, { headers: { accept: 'text/html', ...(language ? { 'accept-language': language } : {}) } });
  const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

  it('the login page answers in German for Accept-Language: de-AT, with Content-Language and Vary', async () => {
    const login = await page(new CookieJar(), authorizeUrl(server), 'de-AT,de;q=0.9,en;q=0.5');
    expect(login.status).toBe(200);
    expect(login.text).toContain('<html lang="de">');
    expect(h1(login.text)).toBe('Anmelden');
    expect(login.text).toContain('<label for="username">Benutzername</label>');
    expect(login.text).toContain('weiter zu <strong>Test App</strong>');
    expect(login.text).toContain('<span class="current-language" lang="de" aria-current="true">Deutsch</span>');
    expect(login.text).toContain('<button type="submit" name="lang" value="en" lang="en" class="link-button" id="language-en">English</button>');
    expect(login.text).not.toContain(MISSING_MESSAGE_MARKER);
    expect(login.headers.get('content-language')).toBe('de');
    expect(login.headers.get('vary')).toBe('Accept-Language, Cookie');
  });

  it('English without a header, for en-US and for a language it does not have', async () => {
    for (const language of [undefined, 'en-US,en;q=0.9', 'fr-FR,fr;q=0.8']) {
      const login = await page(new CookieJar(), authorizeUrl(server), language);
      expect(login.text).toContain('<html lang="en">');
      expect(h1(login.text)).toBe('Sign in');
      expect(login.headers.get('content-language')).toBe('en');
    }
  });

  it('a refused password is said in German', async () => {
    const jar = new CookieJar();
    const login = await page(jar, authorizeUrl(server), 'de');
    const body = form({ uid: uidOf(login.text), username: user.username, password: 'wrong-password-123' });
    const refused = await request(jar, `${server.issuer}/login`, { method: 'POST', headers: { ...body.headers, accept: 'text/html', 'accept-language': 'de' }, body: body.body });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('<p class="error" role="alert">Benutzername oder Passwort ist falsch.</p>');
    expect(refused.text).toContain('Fehlercode: <code>invalid_credentials</code>');
    // The switch on a page answering a POST returns to the sign-in's own page.
    expect(refused.text).toContain(`<input type="hidden" name="return" value="/interaction/${uidOf(login.text)}">`);
  });

  it('the switch sets the cookie, which wins over Accept-Language, and returns to the page', async () => {
    const jar = new CookieJar();
    const login = await page(jar, authorizeUrl(server), 'en');
    const back = `/interaction/${uidOf(login.text)}`;
    const body = form({ lang: 'de', return: back });
    const switched = await request(jar, `${server.issuer}/language`, { method: 'POST', ...body });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe(back);
    expect(switched.headers.getSetCookie().find((line) => line.startsWith('gatehouse.lang='))).toBe('gatehouse.lang=de; path=/; expires=' + new Date(Date.parse(switched.headers.get('date')!) + 365 * 86_400_000).toUTCString() + '; samesite=lax; httponly');
    const again = await page(jar, `${server.issuer}${back}`, 'en-US,en;q=0.9');
    expect(again.status).toBe(200);
    expect(again.text).toContain('<html lang="de">');
    expect(h1(again.text)).toBe('Anmelden');

    const english = await request(jar, `${server.issuer}/language`, { method: 'POST', ...form({ lang: 'en', return: back }) });
    expect(english.status).toBe(303);
    expect(h1((await page(jar, `${server.issuer}${back}`, 'de')).text)).toBe('Sign in');
  });

  it('the switch never leads to another site, and takes only its languages', async () => {
    for (const to of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', '']) {
      const switched = await request(new CookieJar(), `${server.issuer}/language`, { method: 'POST', ...form({ lang: 'de', return: to }) });
      expect(switched.status).toBe(303);
      expect(switched.location).toBe('/account');
    }
    const unknown = await request(new CookieJar(), `${server.issuer}/language`, { method: 'POST', headers: { ...form({ lang: 'fr' }).headers, accept: 'application/json' }, body: form({ lang: 'fr' }).body });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toEqual({ error: 'invalid_request', error_description: 'Field "lang" must be one of en, de.' });
    const crossSite = await request(new CookieJar(), `${server.issuer}/language`, { method: 'POST', headers: { ...form({ lang: 'de' }).headers, 'sec-fetch-site': 'cross-site', accept: 'application/json' }, body: form({ lang: 'de' }).body });
    expect(crossSite.status).toBe(403);
  });

  it('the error pages are in German: not found, and an unknown application', async () => {
    const missing = await page(new CookieJar(), `${server.issuer}/no-such-page`, 'de');
    expect(missing.status).toBe(404);
    expect(h1(missing.text)).toBe('Seite nicht gefunden');
    expect(missing.text).toContain('Unter dieser Adresse gibt es nichts.');
    expect(missing.text).toContain('<a class="button" id="way-on" href="/account">Zu Ihrem Konto</a>');
    expect(missing.text).toContain('<html lang="de">');

    const unknown = await page(new CookieJar(), authorizeUrl(server, { clientId: 'no-such-app' }), 'de');
    expect(unknown.status).toBe(400);
    expect(h1(unknown.text)).toBe('Unbekannte Anwendung');
    expect(unknown.text).not.toContain(MISSING_MESSAGE_MARKER);

    // Another refusal of the library: its description is English, so a German page says it in German.
    const noClient = `${server.issuer}/oauth2/v1/authorize?response_type=code&scope=openid`;
    const german = await page(new CookieJar(), noClient, 'de');
    expect(german.status).toBe(400);
    expect(h1(german.text)).toBe('Anmeldefehler');
    expect(german.text).toContain('<p class="error" role="alert">Die Anfrage konnte nicht abgeschlossen werden.</p>');
    expect(german.text).toContain('Fehlercode: <code>invalid_request</code>');
    const english = await page(new CookieJar(), noClient);
    expect(h1(english.text)).toBe('Sign-in error');
    expect(english.text).toContain("<p class=\"error\" role=\"alert\">missing required parameter &#39;client_id&#39;</p>");
  });

  it('the forgot-password and device pages are in German', async () => {
    const forgot = await page(new CookieJar(), `${server.issuer}/account/forgot-password`, 'de');
    expect(forgot.status).toBe(200);
    expect(h1(forgot.text)).toBe('Passwort zurücksetzen');
    expect(forgot.text).toContain('<label for="identifier">Benutzername oder E-Mail-Adresse</label>');
    expect(forgot.text).not.toContain(MISSING_MESSAGE_MARKER);

    const activate = await page(new CookieJar(), `${server.issuer}/activate`, 'de');
    expect(activate.status).toBe(200);
    expect(h1(activate.text)).toBe('Gerät verbinden');
    expect(activate.text).toContain('<button type="submit" id="activate-continue">Weiter</button>');
    expect(activate.text).not.toContain(MISSING_MESSAGE_MARKER);
  });

  it('the recovery e-mail is written in the language of the page it was asked on', async () => {
    const jar = new CookieJar();
    const body = form({ identifier: user.username });
    const sent = await request(jar, `${server.issuer}/account/forgot-password`, { method: 'POST', headers: { ...body.headers, accept: 'text/html', 'accept-language': 'de', origin: server.issuer }, body: body.body });
    expect(sent.status).toBe(200);
    expect(h1(sent.text)).toBe('Sehen Sie in Ihre E-Mails');
    const outbox = server.app.mailer as unknown as { messages(): readonly { subject: string; text: string }[] };
    await expect.poll(() => outbox.messages()[0]?.subject).toBe('Ihr Gatehouse-Passwort zurücksetzen');
    expect(outbox.messages()[0]!.text.startsWith(`Hallo ${user.username},\n`)).toBe(true);
  });

  it('the development outbox page is in German, its time in the page\'s locale (UTC, rewritten by local-time.js), each mail as it was written', async () => {
    const outbox = server.app.mailer as unknown as { messages(): readonly { subject: string; sentAt: number }[] };
    const kept = outbox.messages()[0]!;
    const german = await page(new CookieJar(), `${server.issuer}/dev/outbox`, 'de');
    expect(german.status).toBe(200);
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.text).toContain('<html lang="de">');
    expect(h1(german.text)).toBe('Postausgang der Entwicklung');
    expect(german.text).toContain('<p class="muted">In der Entwicklung ohne AUTH_SMTP_URL wird keine E-Mail versendet; sie landet hier (und unter outbox/ im Datenverzeichnis). In der Produktion gibt es diese Seite nicht.</p>');
    const at = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(kept.sentAt);
    expect(german.text).toContain(`<p class="muted">An <strong>${user.username}@example.com</strong> · <time datetime="${new Date(kept.sentAt).toISOString()}" data-local="datetime">${at} UTC</time></p>`);
    expect(german.text).toContain(`-subject">${kept.subject}</h2>`);
    expect(german.text).toContain('<script src="/static/local-time.js" defer></script>');
    expect(german.text).not.toContain(MISSING_MESSAGE_MARKER);
    const english = await page(new CookieJar(), `${server.issuer}/dev/outbox`);
    expect(h1(english.text)).toBe('Development outbox');
    expect(english.text).toContain(`<p class="muted">To <strong>${user.username}@example.com</strong> · <time datetime="${new Date(kept.sentAt).toISOString()}" data-local="datetime">`);
  });

  it('the web authenticator is in German, what its script says included (data-text), refusals by their code', async () => {
    const german = await page(new CookieJar(), `${server.issuer}/authenticator`, 'de');
    expect(german.status).toBe(200);
    expect(german.headers.get('content-language')).toBe('de');
    expect(german.headers.get('vary')).toBe('Accept-Language, Cookie');
    expect(german.text).toContain('<html lang="de">');
    expect(german.text).toContain('<title>Authenticator · Gatehouse</title>');
    expect(german.text).toContain('<h1>Dieses Gerät einrichten</h1>');
    expect(german.text).toContain('<label for="enroll-code">Einrichtungscode</label>');
    expect(german.text).toContain('<input id="device-name" name="name" required maxlength="64" value="Mein Gerät">');
    expect(german.text).toContain('<h1>Anmeldeanfragen</h1>');
    expect(german.text).toContain('<p>Öffnen Sie <a href="/account/security">Ihre Kontoseite</a> in einem angemeldeten Browser, wählen Sie „Gerät hinzufügen“ und scannen Sie dann den QR-Code oder geben Sie den Code hier ein.</p>');
    expect(german.text).toContain('<p class="muted">Sie können sich nicht anmelden, um es zu ändern? <a id="reset-password" href="/account/forgot-password">Per E-Mail zurücksetzen</a>.</p>');
    expect(german.text).toContain('<button type="submit" name="lang" value="en" lang="en" class="link-button" id="language-en">English</button>');
    expect(german.text).toContain('<input type="hidden" name="return" value="/authenticator">');
    expect(german.text).not.toContain(MISSING_MESSAGE_MARKER);
    const said = (text: string) => JSON.parse(/<main class="card" id="authenticator" data-text="([^"]*)">/.exec(text)![1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as Record<string, unknown>;
    const script = said(german.text);
    expect(script).toMatchObject({
      deviceInfo: 'Dieses Gerät: {name} · Konto {username}',
      signInTo: 'Bei {client} anmelden?',
      expiresIn: 'Läuft ab in {time}',
      wrongNumber: 'Falsche Zahl: {reason}',
      deny: 'Ablehnen',
      approved: 'Bestätigt: Die Anmeldung geht im anderen Browser weiter.',
    });
    expect((script.errors as Record<string, string>).number_mismatch).toBe(
      'Sie haben eine Zahl gewählt, die die Anmeldeseite nicht zeigt, deshalb wurde die Anmeldung abgelehnt. Wenn Sie sich gerade anmelden, senden Sie einen neuen Push und wählen Sie die dort angezeigte Zahl.',
    );
    // English shows the server's own, more specific description of a refusal.
    const english = await page(new CookieJar(), `${server.issuer}/authenticator`);
    expect(english.text).toContain('<h1>Set up this device</h1>');
    expect(said(english.text)).toMatchObject({ deviceInfo: 'This device: {name} · account {username}', deny: 'Deny', errors: {} });
    expect(english.text).not.toContain(MISSING_MESSAGE_MARKER);
  });

  it('the federated refusal pages are in German', async () => {
    const jar = new CookieJar();
    const uid = uidOf((await page(jar, authorizeUrl(server), 'de')).text);
    const post = (path: string, fields: Record<string, string>) => {
      const body = form(fields);
      return request(jar, `${server.issuer}${path}`, { method: 'POST', headers: { ...body.headers, accept: 'text/html', 'accept-language': 'de' }, body: body.body });
    };
    const unknown = await post('/login/federated/nope', { uid });
    expect(unknown.status).toBe(404);
    expect(h1(unknown.text)).toBe('Unbekannter Anbieter');
    expect(unknown.text).toContain('<p class="error" role="alert">Diesen Anmeldedienst gibt es nicht oder er ist abgeschaltet. Melden Sie sich anders an.</p>');
    expect(unknown.text).toContain(`<a class="button secondary" href="/interaction/${uid}" id="federated-other-way">Anders anmelden</a>`);
    expect(unknown.text).toContain('<button type="submit" class="secondary" id="federated-back">Zurück zu Test App</button>');
    const expired = await post('/login/federated-choice', { uid, choice: 'create' });
    expect(expired.status).toBe(400);
    expect(h1(expired.text)).toBe('Anmeldung abgelaufen');
    expect(expired.text).toContain('<p class="error" role="alert">Diese Anmeldung beim Anbieter wartet nicht mehr auf eine Antwort (sie hat zu lange gedauert oder wurde schon verwendet). Beginnen Sie sie neu.</p>');
    for (const refusal of [unknown, expired]) expect(refusal.text).not.toContain(MISSING_MESSAGE_MARKER);
  });
});
