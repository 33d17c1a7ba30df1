/**
 * "Forgot password?" end to end in Chromium, keyboard only, with mail through a real SMTP
 * server (smtp-server on 127.0.0.1): app-one → login page → Forgot password? → the mail arrives →
 * its link → the second factor and a new password → sign in with it → back at app-one. Every page
 * is checked with axe-core at 390 and 1280 px (screenshots in e2e/artifacts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, signIn } from '../support/browser.ts';
import { checkAtBothWidths, seriousViolations } from '../support/axe.ts';
import { createUser, nextCode } from '../support/users.ts';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink.ts';

let stack: Stack;
let smtp: SmtpSink;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpSink();
  stack = await startStack({ name: 'forgot-password', authEnv: { AUTH_SMTP_URL: `smtp://127.0.0.1:${smtp.port}?tls=off`, AUTH_MAIL_FROM: 'Gatehouse <no-reply@example.com>' } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await smtp?.close();
});

/** Presses Tab until the element with `id` has the focus (keyboard only), at most 20 times. */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached #${id}`);
}

describe('forgot password by email in Chromium', () => {
  it('login page → Forgot password? → email → link → second factor → new password → signed in at app-one', async () => {
    const user = await createUser(stack, 'forgot');
    // The first sign-in enrolls the authenticator (the second factor the reset asks for).
    const enrolling = await browser.newContext();
    await signIn(await enrolling.newPage(), stack.appOneUrl, user);
    await enrolling.close();

    const context = await browser.newContext();
    const page = await context.newPage();
    const csp = cspViolationsOf(page);
    await page.goto(`${stack.appOneUrl}/`);
    expect(await page.locator('h1').textContent()).toBe('Sign in');
    await checkAtBothWidths(page, 'forgot-1-login');

    await tabTo(page, 'forgot-password');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('h1').textContent()).toBe('Reset your password');
    await checkAtBothWidths(page, 'forgot-2-ask');
    await tabTo(page, 'identifier');
    await page.keyboard.type(user.email);
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('#forgot-sent').textContent()).toContain('If an account matches, we sent a link');
    await checkAtBothWidths(page, 'forgot-3-sent');

    const mail = await smtp.nextMail();
    expect(mail.to).toEqual([user.email]);
    const link = /https?:\/\/\S+\/account\/password-reset\/[A-Za-z0-9_-]{43}\?return=[^\s"<]+/.exec(mail.text)![0];
    await page.goto(link);
    expect(await page.locator('h1').textContent()).toBe('Choose a new password');
    await checkAtBothWidths(page, 'forgot-4-reset');
    const fresh = `new-${user.password}-passphrase`;
    await tabTo(page, 'reset-new-password');
    await page.keyboard.type(fresh);
    await page.keyboard.press('Tab');
    await page.keyboard.type(fresh);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('reset-code');
    await page.keyboard.type(await nextCode(user));
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('h1').textContent()).toBe('Password changed');
    await checkAtBothWidths(page, 'forgot-5-done');

    await tabTo(page, 'sign-in');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('h1').textContent()).toBe('Sign in');
    await tabTo(page, 'username');
    await page.keyboard.type(user.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(fresh);
    await navigateBy(page, () => page.keyboard.press('Enter'));
    await tabTo(page, 'code');
    await page.keyboard.type(await nextCode(user));
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`), page.keyboard.press('Enter')]);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
    // app-one's own landing page still scrolls sideways at 390 px (a known gap of that page): axe and screenshots only.
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `forgot-6-back-at-app-one-${width}`);
    }
    expect(csp).toEqual([]);
    await context.close();
  });
});
