/**
 * The pages in German, in Chromium against the whole stack. A browser whose language is German
 * (Accept-Language de-DE) gets every converted page in German: the login page (and its refusal),
 * "Forgot password?", the TOTP enrollment and the recovery-codes step of the first sign-in, app-one's landing, sign-out and
 * 404 pages, the account's Sessions and Security pages (times in the browser's zone), the account selection, the consent of an app that is not first-party, the form_post
 * page, the device activation (and a wrong code), the authorization server's 404 and an unknown
 * app's page, the web authenticator (its enrollment, a push request and a wrong number, what its
 * script says included) and the development outbox (the German recovery mail, its time in Berlin
 * time). Each has `<html lang="de">`, shows no missing-message marker, passes axe-core with no
 * serious or critical violation, and is photographed at 390 and 1280 px. The language switch in
 * the footer changes the language of the auth server's and the app's pages (one cookie on one
 * host) and back. A browser with no language preference set (the tests' default, --lang=en-US)
 * gets English.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { CODE_SUBMIT, cspViolationsOf, launchBrowser, navigateBy, showMethod, shownTotpSecret, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, nextCode, type E2eUser } from '../support/users.ts';

/** What a message missing from a catalogue renders as (@gatehouse/html/i18n MISSING_MESSAGE_MARKER). */
const MISSING_MESSAGE_MARKER = '{{missing:';
const CLIENT_ID = 'movie-night';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let rp: Server;
let redirectUri: string;
let violations: string[] = [];

/** The third-party app's redirect URI: answers GET and the form_post POST alike. */
async function startRelyingParty(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Movie Night</title><main><h1>Movie Night</h1><p id="result">back at the app</p></main></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const url = new URL('/oauth2/v1/authorize', stack.authUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    scope: 'openid profile email movies:read',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return url.toString();
}

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();

/** The checks of every German page: its language, no missing message, axe and screenshots at both widths. */
async function germanPage(name: string, on: Page = page): Promise<void> {
  expect(await on.getAttribute('html', 'lang')).toBe('de');
  expect(await on.content()).not.toContain(MISSING_MESSAGE_MARKER);
  await checkAtBothWidths(on, `languages-${name}`);
}

beforeAll(async () => {
  rp = await startRelyingParty();
  redirectUri = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  stack = await startStack({ name: 'languages' });
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'client', 'add', CLIENT_ID, '--public', '--redirect-uri', redirectUri, '--name', 'Movie Night', '--json'], {
    cwd: stack.dataDir,
    env: stack.authEnv,
  });
  user = await createUser(stack, 'languages');
  browser = await launchBrowser();
  context = await browser.newContext({ locale: 'de-DE', timezoneId: 'Europe/Berlin' });
  page = await context.newPage();
  violations = cspViolationsOf(page);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => rp?.close(resolve));
});

describe('the pages in German, in Chromium', () => {
  it('the login page, chosen by Accept-Language, and its refusal', async () => {
    await page.goto(`${stack.appOneUrl}/`);
    expect(await text('h1')).toBe('Anmelden');
    expect(await text('label[for=username]')).toBe('Benutzername');
    expect(await text('#forgot-password')).toBe('Passwort vergessen?');
    // What the passkey script says, in the page's language.
    expect(await page.getAttribute('#passkey-login [data-passkey-status]', 'data-follow')).toBe('Folgen Sie den Anweisungen Ihres Browsers oder Sicherheitsschlüssels …');
    await germanPage('login');

    await submitPassword(page, user, 'not-the-password-123');
    expect(await text('p.error')).toBe('Benutzername oder Passwort ist falsch.');
    await germanPage('login-refused');
  });

  it('"Forgot password?" and back', async () => {
    await navigateBy(page, () => page.click('#forgot-password'));
    expect(await text('h1')).toBe('Passwort zurücksetzen');
    await germanPage('forgot-password');
    await navigateBy(page, () => page.click('#back-to-sign-in'));
    expect(await text('h1')).toBe('Anmelden');
  });

  it('the TOTP enrollment and the recovery-codes step of the first sign-in, then app-one in German with relative times', async () => {
    await submitPassword(page, user);
    expect(await text('h1')).toBe('Bestätigung in zwei Schritten einrichten');
    expect(await text('label[for=code]')).toBe('Bestätigungscode');
    await germanPage('mfa-enroll');
    user.totpSecret = await shownTotpSecret(page);
    await page.fill('#code', await nextCode(user));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await text('h1')).toBe('Wiederherstellungscodes speichern');
    expect(await text('#recovery-title')).toBe('Ihre 10 Wiederherstellungscodes');
    await germanPage('recovery-codes');

    await navigateBy(page, () => page.click('#codes-saved'));
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await text('h1')).toMatch(/^Willkommen, /);
    expect(await text('#token-expires time')).toMatch(/^in \d+ Minuten$/);
    expect(await page.getAttribute('#token-expires time', 'title')).toMatch(/^\d\d\.\d\d\.\d{4}, \d\d:\d\d UTC$/);
    expect(await text('#manage-account')).toBe('Ihr Konto verwalten');
    await germanPage('app-one');
  });

  it("the language switch changes the app's and the auth server's pages, and back", async () => {
    await navigateBy(page, () => page.click('#language-en'));
    expect(page.url()).toBe(`${stack.appOneUrl}/`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await text('h1')).toMatch(/^Welcome, /);

    // One cookie on one host: the auth server's pages follow the choice, whatever Accept-Language says.
    await page.goto(`${stack.authUrl}/activate`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await text('h1')).toBe('Connect a device');
    await navigateBy(page, () => page.click('#language-de'));
    expect(page.url()).toBe(`${stack.authUrl}/activate`);
    expect(await text('h1')).toBe('Gerät verbinden');
    await germanPage('activate');

    await page.fill('#user_code', 'BCDF-GHJK');
    await navigateBy(page, () => page.click('#activate-continue'));
    expect(await text('#activate-problem')).toBe(
      'Dieser Code ist ungültig oder abgelaufen. Prüfen Sie den Code auf Ihrem Gerät und versuchen Sie es erneut, oder beginnen Sie auf dem Gerät neu, um einen neuen zu erhalten.',
    );
    await germanPage('activate-wrong-code');
  });

  it('the account pages in German, their times in the browser\'s time zone', async () => {
    await page.goto(`${stack.authUrl}/account/sessions`);
    await page.waitForURL(`${stack.authUrl}/account/sessions`);
    expect(await text('h1')).toBe('Sitzungen');
    expect(await text('#nav-security')).toBe('Sicherheit');
    expect(await text('#sign-out-others')).toBe('Alle anderen Sitzungen abmelden');
    // The server wrote the time relative to now with the UTC time as title; local-time.js put the title in Berlin time.
    const time = page.locator('#session-list li[data-current] time').first();
    const instant = Date.parse((await time.getAttribute('datetime'))!);
    expect(await time.textContent()).toMatch(/^(jetzt|vor \d+ (Sekunden|Minuten?))$/);
    const berlin = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(instant);
    await expect.poll(() => time.getAttribute('title')).toBe(berlin);
    expect(await text('#session-list li[data-current] strong')).toBe('Chrome unter Linux');
    await germanPage('account-sessions');
    await page.goto(`${stack.authUrl}/account/security`);
    expect(await text('h1')).toBe('Sicherheit');
    await germanPage('account-security');
  });

  it('the web authenticator in German: its enrollment, a push request and a wrong number, as its script says them', async () => {
    await page.goto(`${stack.authUrl}/account/security`);
    await navigateBy(page, () => page.click('#add-device'));
    const link = await page.locator('#enrollment-link').getAttribute('href');
    const phone = await context.newPage();
    const phoneViolations = cspViolationsOf(phone);
    await phone.goto(link!);
    await phone.waitForSelector('#enroll:not([hidden])');
    expect((await phone.locator('#enroll h1').textContent())?.trim()).toBe('Dieses Gerät einrichten');
    expect(await phone.locator('label[for=enroll-code]').textContent()).toBe('Einrichtungscode');
    expect(await phone.inputValue('#device-name')).toBe('Mein Gerät');
    await germanPage('authenticator-enroll', phone);
    await phone.fill('#device-name', 'Telefon');
    await phone.click('#enroll-submit');
    await phone.waitForSelector('#main:not([hidden])');
    expect(await phone.locator('#device-info').textContent()).toBe(`Dieses Gerät: Telefon · Konto ${user.username}`);
    expect(await phone.locator('#empty').textContent()).toBe('Keine Anmeldung wartet auf Ihre Bestätigung.');
    await expect.poll(() => phone.locator('#status').textContent()).toBe('Verbunden: Anfragen erscheinen hier, sobald sie eintreffen.');
    await germanPage('authenticator', phone);

    // Another German browser signs in to app-one with a push; the phone shows the request in German.
    const laptopContext = await browser.newContext({ locale: 'de-DE', timezoneId: 'Europe/Berlin' });
    try {
      const laptop = await laptopContext.newPage();
      await laptop.goto(`${stack.appOneUrl}/`);
      await submitPassword(laptop, user);
      await showMethod(laptop, '#send-push');
      await navigateBy(laptop, () => laptop.click('#send-push'));
      const number = (await laptop.locator('#push-number').textContent())?.trim();
      const card = phone.locator('.request');
      await card.waitFor();
      expect(await card.locator('h2').textContent()).toMatch(/^Bei .+ anmelden\?$/);
      expect(await card.locator('dt').allTextContents()).toEqual(['Browser', 'IP-Adresse']);
      expect(await card.locator('.countdown').textContent()).toMatch(/^Läuft ab in (1:00|0:[0-5]\d)$/);
      expect(await card.locator('p:not(.countdown)').textContent()).toBe('Wählen Sie zum Bestätigen die Zahl, die die Anmeldeseite zeigt:');
      expect(await card.locator('button[data-deny]').textContent()).toBe('Ablehnen');
      await germanPage('authenticator-request', phone);

      // A wrong number is said by its code's German text, and "This wasn't me" is offered.
      const wrong = (await card.locator('.choices button').allTextContents()).map((t) => t.trim()).find((n) => n !== number)!;
      await phone.click(`.request button[data-number="${wrong}"]`);
      await expect.poll(() => phone.locator('#result').textContent()).toBe(
        'Falsche Zahl: Sie haben eine Zahl gewählt, die die Anmeldeseite nicht zeigt, deshalb wurde die Anmeldung abgelehnt. Wenn Sie sich gerade anmelden, senden Sie einen neuen Push und wählen Sie die dort angezeigte Zahl.',
      );
      expect(await phone.locator('#not-me-button').textContent()).toBe('Das war ich nicht');
      await germanPage('authenticator-wrong-number', phone);
    } finally {
      await laptopContext.close();
      await phone.close();
    }
    expect(phoneViolations).toEqual([]);
  });

  it("app-one's sign-out question and its 404 page", async () => {
    await page.goto(`${stack.appOneUrl}/logout`);
    expect(await text('h1')).toBe('Abmelden?');
    await germanPage('app-one-logout');
    await page.goto(`${stack.appOneUrl}/no-such-page`);
    expect(await text('h1')).toBe('Nicht gefunden');
    await germanPage('app-one-not-found');
  });

  it('the account selection on the way into app-two', async () => {
    // app-two starts its sign-in (its login cookie lands in this browser); the request asks to choose the account.
    const start = await page.request.get(`${stack.appTwoUrl}/`, { maxRedirects: 0 });
    expect(start.status()).toBe(302);
    const authorize = new URL(start.headers().location!);
    authorize.searchParams.set('prompt', 'select_account');
    await page.goto(authorize.href);
    expect(await text('h1')).toBe('Konto auswählen');
    expect(await text('#select-account-another')).toBe('Anderes Konto verwenden');
    await germanPage('select-account');
    await navigateBy(page, () => page.click('#select-account-continue'));
    await page.waitForURL(`${stack.appTwoUrl}/`);
    expect(await text('h1')).toMatch(/^Willkommen, /);
  });

  it('the consent of an app that is not first-party, each scope in German', async () => {
    await page.goto(authorizeUrl());
    expect(await text('h1')).toBe('Movie Night den Zugriff auf Ihr Konto erlauben?');
    expect(await page.locator('#consent-scopes li').allTextContents()).toEqual([
      'Wissen, wer Sie sind (Ihre Gatehouse-Benutzer-ID) openid',
      'Ihren Namen und Benutzernamen sehen profile',
      'Ihre E-Mail-Adresse sehen email',
      'Ihre movies ansehen movies:read',
    ]);
    await germanPage('consent');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUri)), page.click('#consent-allow')]);
  });

  it('the form_post page (read as the browser receives it: its script posts it on at once)', async () => {
    const answer = await page.request.get(authorizeUrl({ response_mode: 'form_post' }), { headers: { accept: 'text/html' } });
    expect(answer.status()).toBe(200);
    const body = await answer.text();
    expect(body).toContain('<html lang="de">');
    expect(body).toContain('<h1>Zurück zur Anwendung</h1>');
    expect(body).not.toContain(MISSING_MESSAGE_MARKER);
    expect(answer.headers()['content-language']).toBe('de');
  });

  it("the auth server's 404 page and an unknown app's page", async () => {
    await page.goto(`${stack.authUrl}/no-such-page`);
    expect(await text('h1')).toBe('Seite nicht gefunden');
    expect(await text('#way-on')).toBe('Zu Ihrem Konto');
    await germanPage('not-found');
    await page.goto(`${stack.authUrl}/oauth2/v1/authorize?client_id=no-such-app&response_type=code&scope=openid`);
    expect(await text('h1')).toBe('Unbekannte Anwendung');
    await germanPage('unknown-app');
  });

  it('the development outbox in German, with the German recovery mail and its time in Berlin time', async () => {
    await page.goto(`${stack.authUrl}/account/forgot-password`);
    await page.fill('#identifier', user.username);
    await navigateBy(page, () => page.click('form:has(#identifier) button[type=submit]'));
    expect(await text('h1')).toBe('Sehen Sie in Ihre E-Mails');
    await page.goto(`${stack.authUrl}/dev/outbox`);
    expect(await text('h1')).toBe('Postausgang der Entwicklung');
    const mail = page.locator('.outbox-message').first();
    expect(await mail.locator('h2').textContent()).toBe('Ihr Gatehouse-Passwort zurücksetzen');
    expect(await mail.locator('pre').textContent()).toMatch(new RegExp(`^Hallo ${user.username},\n\nJemand \\(hoffentlich Sie\\) hat darum gebeten`));
    // The server wrote the time in UTC; local-time.js shows it in Berlin time.
    const time = mail.locator('time');
    const berlin = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(Date.parse((await time.getAttribute('datetime'))!));
    await expect.poll(() => time.textContent()).toBe(berlin);
    expect(await mail.locator('p.muted').textContent()).toBe(`An ${user.email} · ${berlin}`);
    await germanPage('outbox');
  });

  it('no page broke the CSP', () => {
    expect(violations).toEqual([]);
  });

  it('a browser with no language set (the tests default to en-US) gets English', async () => {
    const english = await browser.newContext();
    try {
      const other = await english.newPage();
      await other.goto(`${stack.appOneUrl}/`);
      expect(await other.getAttribute('html', 'lang')).toBe('en');
      expect((await other.locator('h1').textContent())?.trim()).toBe('Sign in');
    } finally {
      await english.close();
    }
  });
});
