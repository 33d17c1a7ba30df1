/**
 * The logout confirmation in a real browser against the whole stack: a signed-in browser
 * sent to /oauth2/v1/logout without an id_token_hint (as any site could send it) is asked, on a
 * page without script, checked with axe-core and photographed at 390 and 1280 px. By keyboard
 * only: Tab reaches "Sign out everywhere", the second choice, then "Stay signed in", which keeps
 * the session (the account page opens); back on the page, Enter on the focused "Sign out" ends
 * it, and the account page needs a sign-in again. Signed in again here and in a second browser,
 * "Sign out everywhere" by keyboard ends both, and the page after it says so.
 * No CSP workaround: every answer is enforced as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, submitCode, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let cspViolations: string[] = [];

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
// Chromium applies autofocus at its next rendering step, which may come after the load event: focus is polled.
const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');


beforeAll(async () => {
  stack = await startStack({ name: 'logout-confirmation', clientApps: false });
  user = await createUser(stack, 'logout');
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

describe('issue 29, logout without id_token_hint asks the user, in Chromium', () => {
  it('a signed-in browser sent to the logout endpoint sees a question, not a sign-out', async () => {
    await page.goto(`${stack.authUrl}/account`);
    await submitPassword(page, user);
    await submitCode(page, user);
    await page.waitForURL(`${stack.authUrl}/account`);

    await page.goto(`${stack.authUrl}/oauth2/v1/logout`);
    await page.waitForLoadState('networkidle');
    // Nothing pressed "Sign out": the page stays, and it carries no script at all.
    expect(new URL(page.url()).pathname).toBe('/oauth2/v1/logout');
    expect(await page.locator('script').count()).toBe(0);
    expect(await text('h1')).toBe('Sign out of Gatehouse?');
    expect(await text('#logout-username')).toBe(user.username);
    expect(await text('#logout-everywhere')).toBe('Sign out everywhere');
    expect(await text('#logout-everywhere-choice')).toBe("You are not signed in to Gatehouse anywhere else. Sign out everywhere ends every session of your account and every app's access to it: each browser, device and app must sign in again.");
    await checkAtBothWidths(page, 'logout-confirmation');
  });

  it('by keyboard: Tab reaches "Sign out everywhere", then "Stay signed in", which keeps the session', async () => {
    await expect.poll(focusedId).toBe('logout-confirm');
    await page.keyboard.press('Tab');
    await expect.poll(focusedId).toBe('logout-everywhere');
    await page.keyboard.press('Tab');
    await expect.poll(focusedId).toBe('logout-cancel');
    await Promise.all([page.waitForURL(`${stack.authUrl}/account`), page.keyboard.press('Enter')]);
    expect(await text('h1')).toBe('Your account');
  });

  it('by keyboard: Enter on the focused "Sign out" ends the session', async () => {
    await page.goto(`${stack.authUrl}/oauth2/v1/logout`);
    await expect.poll(focusedId).toBe('logout-confirm');
    await Promise.all([page.waitForURL(`${stack.authUrl}/oauth2/v1/logout/success`), page.keyboard.press('Enter')]);
    expect(await text('h1')).toBe('Signed out');
    await page.goto(`${stack.authUrl}/account`);
    expect(await text('h1')).toBe('Sign in');
  });

  it('by keyboard: "Sign out everywhere" ends this session and the one in another browser', async () => {
    await submitPassword(page, user);
    await submitCode(page, user);
    await page.waitForURL(`${stack.authUrl}/account`);
    const other = await browser.newContext();
    try {
      const phone = await other.newPage();
      await phone.goto(`${stack.authUrl}/account`);
      await submitPassword(phone, user);
      await submitCode(phone, user);
      await phone.waitForURL(`${stack.authUrl}/account`);

      await page.goto(`${stack.authUrl}/oauth2/v1/logout`);
      expect(await text('#logout-everywhere-choice')).toBe("You are also signed in to Gatehouse in 1 other browser or device. Sign out everywhere ends every session of your account and every app's access to it: each browser, device and app must sign in again.");
      await checkAtBothWidths(page, 'logout-confirmation-elsewhere');
      await expect.poll(focusedId).toBe('logout-confirm');
      await page.keyboard.press('Tab');
      await expect.poll(focusedId).toBe('logout-everywhere');
      await Promise.all([page.waitForURL(`${stack.authUrl}/oauth2/v1/logout/success`), page.keyboard.press('Enter')]);
      expect(await text('h1')).toBe('Signed out');
      expect(await text('#ended-elsewhere')).toBe('Signed out everywhere: 1 other session ended. Every browser and device must sign in again.');
      await checkAtBothWidths(page, 'logout-confirmation-everywhere-done');

      await phone.goto(`${stack.authUrl}/account`);
      expect((await phone.locator('h1').first().textContent())?.trim()).toBe('Sign in');
      await page.goto(`${stack.authUrl}/account`);
      expect(await text('h1')).toBe('Sign in');
    } finally {
      await other.close();
    }
    expect(cspViolations).toEqual([]);
  });
});
