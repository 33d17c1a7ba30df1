/**
 * Changing the e-mail address on the account page in Chromium, by keyboard, with mail through a
 * real SMTP server (smtp-server on 127.0.0.1): the Profile page's form sends a link to the new
 * address and says so at the top of the page (inside the viewport at 390 px); the address shown
 * stays the old one until the link is opened; the link's page says the address changed, the old
 * address gets a notice, and the Profile page shows the new one; a German browser gets all of it,
 * and the page of a used link, in German. axe-core and screenshots at 390 and 1280 px on the
 * Profile page with its message and on the link's pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { cspViolationsOf, launchBrowser, signIn } from '../support/browser.ts';
import { activate, expectInViewport, PHONE, typeInto } from '../support/keyboard.ts';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let smtp: SmtpSink;
let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let csp: string[];

beforeAll(async () => {
  smtp = await startSmtpSink();
  stack = await startStack({ name: 'account-email', authEnv: { AUTH_SMTP_URL: `smtp://127.0.0.1:${smtp.port}?tls=off`, AUTH_MAIL_FROM: 'Gatehouse <no-reply@example.com>' } });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  csp = cspViolationsOf(page);
  user = await createUser(stack, 'email');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
  await smtp?.close();
});

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();

describe('changing the email address in Chromium', () => {
  it('the new address is used once its link is opened; the old one gets a notice', async () => {
    await signIn(page, stack.appOneUrl, user);
    await page.setViewportSize(PHONE);
    await page.goto(`${stack.authUrl}/account`);
    const fresh = `new-${user.username}@example.org`;
    await typeInto(page, '#new-email', fresh);
    await activate(page, '#change-email');
    expect(new URL(page.url()).pathname).toBe('/account');
    expect(await text('#notice')).toBe(`We sent a link to ${fresh}. Open it to start using that address; until then your current address stays.`);
    await expectInViewport(page, '#notice');
    expect(await text('#profile-email')).toBe(user.email);
    await checkAtBothWidths(page, 'account-email-sent');

    const mail = await smtp.nextMail();
    expect(mail.to).toEqual([fresh]);
    const link = /https?:\/\/\S+\/account\/email\/verify\/[A-Za-z0-9_-]{43}/.exec(mail.text)![0];
    await page.goto(link);
    expect(await text('h1')).toBe('Email address changed');
    await checkAtBothWidths(page, 'account-email-changed');
    const notice = await smtp.nextMail();
    expect(notice.to).toEqual([user.email]);
    expect(notice.text).toContain(`changed to ${fresh}`);

    await activate(page, '#way-on');
    expect(await text('#profile-email')).toBe(fresh);
    expect(csp).toEqual([]);
  });

  it('in German: the message, the page of the link and the page of a used link', async () => {
    const german = await browser.newContext({ locale: 'de-DE' });
    const de = await german.newPage();
    const violations = cspViolationsOf(de);
    const said = async (selector: string) => (await de.locator(selector).first().textContent())?.trim();
    const reader = await createUser(stack, 'email-de');
    try {
      await signIn(de, stack.appOneUrl, reader);
      await de.setViewportSize(PHONE);
      await de.goto(`${stack.authUrl}/account`);
      const fresh = `neu-${reader.username}@example.org`;
      await typeInto(de, '#new-email', fresh);
      await activate(de, '#change-email');
      expect(await said('#notice')).toBe(`Wir haben einen Link an ${fresh} gesendet. Öffnen Sie ihn, um diese Adresse zu verwenden; bis dahin gilt Ihre bisherige Adresse.`);
      await expectInViewport(de, '#notice');
      await checkAtBothWidths(de, 'account-email-sent-de');

      const mail = await smtp.nextMail();
      const link = /https?:\/\/\S+\/account\/email\/verify\/[A-Za-z0-9_-]{43}/.exec(mail.text)![0];
      await de.goto(link);
      expect(await de.getAttribute('html', 'lang')).toBe('de');
      expect(await said('h1')).toBe('E-Mail-Adresse geändert');
      expect(await said('[role=status]')).toBe(`Ihr Konto verwendet jetzt ${fresh}. Ihre bisherige Adresse hat einen Hinweis erhalten.`);
      expect(await said('#way-on')).toBe('Zu Ihrem Konto');
      await checkAtBothWidths(de, 'account-email-changed-de');
      await smtp.nextMail();

      await de.goto(link);
      expect(await said('h1')).toBe('Link ungültig');
      expect(await said('[role=alert]')).toBe('Dieser Link ist unbekannt, wurde schon verwendet oder ist abgelaufen. Fordern Sie auf Ihrer Kontoseite einen neuen an.');
      await checkAtBothWidths(de, 'account-email-link-invalid-de');
      expect(await de.content()).not.toContain('{{missing:');
      expect(violations).toEqual([]);
    } finally {
      await german.close();
    }
  });
});
