/**
 * The admin console in German, in Chromium against the whole stack: a browser whose language is
 * German (Accept-Language de-DE) in Berlin time gets every console page in German: the dashboard
 * (its times in Berlin time, written by /static/local-time.js), the Users list and a user's page,
 * a confirmation page and the message after it (by keyboard), the Clients list and the
 * registration form, the Scope policies, the Signing keys, and the Audit trail with a refused
 * filter. Each page has `<html lang="de">`, shows no missing-message marker, passes axe-core with
 * no serious or critical violation and is photographed at 390 and 1280 px. The language switch in
 * the console's footer changes the page to English and back, on the same page. No CSP workaround.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAtBothWidths } from '../support/axe.ts';
import { navigateBy } from '../support/browser.ts';
import { closeConsoleSession, openConsoleSession, tabTo } from '../support/admin-console.ts';
import type { Stack } from '../support/stack.ts';
import { createUser } from '../support/users.ts';

/** What a message missing from a catalogue renders as (@gatehouse/html/i18n MISSING_MESSAGE_MARKER). */
const MISSING_MESSAGE_MARKER = '{{missing:';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let csp: string[];

beforeAll(async () => {
  ({ stack, browser, context, page, csp } = await openConsoleSession({ name: 'admin-console-german', admin: 'console-de', context: { locale: 'de-DE', timezoneId: 'Europe/Berlin' } }));
});

afterAll(() => closeConsoleSession({ stack, browser, context }));

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
const enter = () => navigateBy(page, () => page.keyboard.press('Enter'));

/** The checks of every German console page: its language, no missing message, axe and screenshots at both widths. */
async function germanPage(name: string): Promise<void> {
  expect(await page.getAttribute('html', 'lang')).toBe('de');
  expect(await page.content()).not.toContain(MISSING_MESSAGE_MARKER);
  expect(await text('#language-switch .current-language')).toBe('Deutsch');
  await checkAtBothWidths(page, `admin-console-german-${name}`);
}

/** A `<time data-local>` shows its instant in German, in Berlin time. */
async function expectBerlinTime(selector: string): Promise<void> {
  const time = page.locator(selector).first();
  const instant = Date.parse((await time.getAttribute('datetime'))!);
  const berlin = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' }).format(instant);
  await expect.poll(async () => (await time.textContent())?.trim()).toBe(berlin);
}

describe('the admin console in German, in Chromium', () => {
  it('the dashboard, with its times in Berlin time', async () => {
    expect(page.url()).toBe(`${stack.authUrl}/admin`);
    expect(await text('h1')).toBe('Übersicht');
    expect(await page.title()).toBe('Übersicht · Gatehouse-Verwaltung');
    expect(await text('nav[aria-label="Verwaltungskonsole"] a[aria-current="page"]')).toBe('Übersicht');
    expect(await text('#console-role')).toBe('Administrator');
    expect(await text('#activity-heading')).toBe('Letzte 24 Stunden');
    expect(await text('#pending-migrations')).toBe('keine, das Datenbankschema ist aktuell');
    await expectBerlinTime('#activity-heading ~ p time');
    await expectBerlinTime('#key-table time');
    await germanPage('dashboard');
  });

  it("the Users list, a user's page, and disabling the user after a confirmation page, by keyboard", async () => {
    const user = await createUser(stack, 'console-de-user');
    await page.goto(`${stack.authUrl}/admin/users?q=${user.username}`);
    expect(await text('h1')).toBe('Benutzer');
    expect(await text('label[for=user-search]')).toBe('Nach Benutzername oder E-Mail suchen');
    expect(await page.locator('#user-table thead th').allTextContents()).toEqual(['Benutzername', 'Name', 'E-Mail', 'Gruppen', 'Status']);
    expect(await text('#user-table .badge')).toBe('aktiv');
    await germanPage('users');

    await tabTo(page, `#user-table a`);
    await enter();
    expect(await text('h1')).toBe(user.username);
    expect(await text('#profile-heading')).toBe('Profil');
    expect(await text('#user-lockout')).toBe('nicht gesperrt');
    expect(await text('#factor-totp')).toBe('nicht eingerichtet');
    expect(await text('#session-list')).toBe('Keine aktive Sitzung.');
    await germanPage('user');

    await tabTo(page, '#disable-user');
    await enter();
    expect(await text('h1')).toBe(`${user.username} deaktivieren?`);
    expect(await text('#confirm > p')).toBe('Das bewirkt:');
    expect(await text('#cancel')).toBe('Abbrechen');
    await germanPage('disable-confirm');
    await tabTo(page, '#confirm-action');
    await enter();
    expect(await text('#flash')).toBe(`${user.username} ist deaktiviert: 0 Sitzungen und 0 Berechtigungen beendet.`);
    expect(await text('#user-status .badge')).toBe('deaktiviert');
    await expectBerlinTime('#user-status time');
    await germanPage('user-disabled');
  });

  it('the Clients list and the registration form', async () => {
    await page.goto(`${stack.authUrl}/admin/clients`);
    expect(await text('h1')).toBe('Clients');
    expect(await text('#new-client')).toBe('Client registrieren');
    await germanPage('clients');
    await page.goto(`${stack.authUrl}/admin/clients/new`);
    expect(await text('h1')).toBe('Client registrieren');
    expect(await text('label[for=type-public]')).toBe('Öffentlich: eine Browser- oder Mobil-App ohne Geheimnis (PKCE)');
    expect(await text('#new-client-form legend')).toBe('Art');
    await germanPage('client-new');
  });

  it('the Scope policies, the Signing keys, and the Audit trail with a refused filter', async () => {
    await page.goto(`${stack.authUrl}/admin/scopes`);
    expect(await text('h1')).toBe('Scope-Richtlinien');
    expect(await text('#set-policy-heading')).toBe('Einen Scope einschränken');
    await germanPage('scopes');

    await page.goto(`${stack.authUrl}/admin/keys`);
    expect(await text('h1')).toBe('Signaturschlüssel');
    expect(await text('#key-list tr[data-state="active"] td:nth-of-type(2)')).toBe('signiert');
    expect(await text('#rotate-keys')).toBe('Jetzt wechseln …');
    await germanPage('keys');

    await page.goto(`${stack.authUrl}/admin/audit`);
    expect(await text('h1')).toBe('Audit-Protokoll');
    await expectBerlinTime('#audit-list time');
    await germanPage('audit');
    await tabTo(page, '#filter-since');
    await page.keyboard.type('gestern');
    await enter();
    expect(await text('#filter-error p')).toBe('Eine Zeit muss ISO 8601 mit Zone (2026-11-23T10:00:00Z) oder eine Dauer zurück ab jetzt (30m, 24h, 7d) sein, und „Bis“ muss nach „Seit“ liegen.');
    expect(await text('#no-events')).toBe('Es wurde nichts gesucht: Korrigieren Sie den Filter oben.');
    await germanPage('audit-refused');
  });

  it("the language switch in the console's footer changes the page to English and back", async () => {
    await page.goto(`${stack.authUrl}/admin/keys`);
    await tabTo(page, '#language-en');
    await enter();
    expect(page.url()).toBe(`${stack.authUrl}/admin/keys`);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await text('h1')).toBe('Signing keys');
    await tabTo(page, '#language-de');
    await enter();
    expect(page.url()).toBe(`${stack.authUrl}/admin/keys`);
    expect(await text('h1')).toBe('Signaturschlüssel');
  });

  it('no page broke the CSP', () => {
    expect(csp).toEqual([]);
  });
});
