/**
 * Back-channel logout in a real browser against the whole stack (app-one and app-two registered by
 * the dev seed with their /backchannel-logout, each re-checking its SSO session only once a
 * minute). Signing out in app-one leaves app-two signed out on its very next page. The sign-out
 * page of the authorization server names the apps it signs out and, after it, the apps that signed
 * the browser out: both checked with axe-core and photographed at 390 and 1280 px, by keyboard,
 * with every answer's CSP enforced as sent.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let cspViolations: string[] = [];

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
const items = (selector: string) => page.locator(`${selector} li`).allTextContents();
// Chromium applies autofocus at its next rendering step, which may come after the load event: focus is polled.
const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');

beforeAll(async () => {
  stack = await startStack({ name: 'backchannel-logout' });
  user = await createUser(stack, 'backchannel');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
});

afterEach(async () => {
  await context?.close();
});

/** Signs the browser in to app-one, then to app-two through the SSO session. */
async function signedInToBoth(): Promise<void> {
  await signIn(page, stack.appOneUrl, user);
  await page.goto(`${stack.appTwoUrl}/`);
  await page.waitForURL(`${stack.appTwoUrl}/`);
  expect(await text('h1')).not.toBe('Sign in');
}

describe('back-channel logout in Chromium', () => {
  it('signing out in app-one: app-two\'s next page already asks to sign in', async () => {
    await signedInToBoth();
    await page.goto(`${stack.appOneUrl}/logout`);
    await Promise.all([page.waitForURL(`${stack.authUrl}/oauth2/v1/logout/success`), page.click('#logout')]);
    expect(await text('h1')).toBe('Signed out');

    await page.goto(`${stack.appTwoUrl}/`);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    expect(await text('h1')).toBe('Sign in');
    await screenshot(page, 'backchannel-app-two-signed-out');
    expect(cspViolations).toEqual([]);
  });

  it('the sign-out page names the apps it signs out, and then the apps that signed out (keyboard, axe, 390 and 1280 px)', async () => {
    await signedInToBoth();
    await page.goto(`${stack.authUrl}/oauth2/v1/logout`);
    expect(await text('h1')).toBe('Sign out of Gatehouse?');
    expect(await items('#logout-apps')).toEqual(['app-one', 'app-two']);
    await checkAtBothWidths(page, 'backchannel-logout-confirmation');

    await expect.poll(focusedId).toBe('logout-confirm');
    await Promise.all([page.waitForURL(`${stack.authUrl}/oauth2/v1/logout/success`), page.keyboard.press('Enter')]);
    expect(await text('h1')).toBe('Signed out');
    expect(await items('#signed-out-apps')).toEqual(['app-one', 'app-two']);
    expect(await page.locator('#pending-apps').count()).toBe(0);
    await checkAtBothWidths(page, 'backchannel-signed-out');

    for (const app of [stack.appOneUrl, stack.appTwoUrl]) {
      await page.goto(`${app}/`);
      expect(new URL(page.url()).origin).toBe(stack.authUrl);
      expect(await text('h1')).toBe('Sign in');
    }
    expect(cspViolations).toEqual([]);
  });
});
