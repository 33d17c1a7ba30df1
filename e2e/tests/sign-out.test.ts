/**
 * Signing out in Chromium against the whole stack (app-one and app-two registered with their
 * back-channel logout URIs by the dev seed): "Sign out" in app-one lands on Gatehouse's page,
 * which lists app-one and app-two, leads back to app-one and offers "Sign out everywhere" while
 * the user is signed in in another browser; app-two's very next page shows the browser signed
 * out; "Sign out everywhere", pressed by keyboard, ends the other browser's session too. The page
 * is checked with axe-core and photographed at 390 and 1280 px before and after, and no answer
 * breaks its CSP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, navigateBy, signIn } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let user: E2eUser;
const contexts: BrowserContext[] = [];
const violations: string[][] = [];

async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  violations.push(cspViolationsOf(page));
  return page;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent())?.trim();
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

/** Presses Tab until the element with this id has the focus (at most 20 times). */
async function tabTo(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 20 && (await focusedId(page)) !== id; i++) await page.keyboard.press('Tab');
  expect(await focusedId(page)).toBe(id);
}

/** The app's next page load: signed in (its landing page) or sent to Gatehouse's sign-in. */
async function signedInAt(page: Page, appUrl: string): Promise<boolean> {
  await page.goto(`${appUrl}/`);
  if (new URL(page.url()).origin === new URL(appUrl).origin) return (await page.locator('#user-name').count()) === 1;
  expect(await text(page, 'h1')).toBe('Sign in');
  return false;
}

beforeAll(async () => {
  stack = await startStack({ name: 'sign-out' });
  user = await createUser(stack, 'signout');
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
});

describe('signing out in Chromium', () => {
  it('sign out of app-one: the page lists app-one and app-two, app-two shows signed out, and "Sign out everywhere" ends the other browser', async () => {
    const laptop = await newPage();
    await signIn(laptop, stack.appOneUrl, user);
    expect(await signedInAt(laptop, stack.appTwoUrl)).toBe(true);
    const phone = await newPage();
    await signIn(phone, stack.appOneUrl, user);

    await laptop.goto(`${stack.appOneUrl}/`);
    await tabTo(laptop, 'logout');
    await Promise.all([laptop.waitForURL(`${stack.authUrl}/oauth2/v1/logout/success`), laptop.keyboard.press('Enter')]);
    expect(await text(laptop, 'h1')).toBe('Signed out');
    expect(await laptop.locator('#signed-out-apps li').allTextContents()).toEqual(['app-one', 'app-two']);
    expect(await text(laptop, '#back-to-app')).toBe('Back to app-one');
    expect(await text(laptop, '#everywhere-sessions')).toBe('You are still signed in to Gatehouse in 1 other browser or device. Signing out everywhere ends it and the apps signed in with it.');
    await checkAtBothWidths(laptop, 'sign-out-signed-out');

    // app-two's next page load: signed out, in this browser only.
    const back = laptop.url();
    expect(await signedInAt(laptop, stack.appTwoUrl)).toBe(false);
    expect(await signedInAt(phone, stack.appOneUrl)).toBe(true);

    await laptop.goto(back);
    await tabTo(laptop, 'sign-out-everywhere');
    await navigateBy(laptop, () => laptop.keyboard.press('Enter'));
    expect(new URL(laptop.url()).pathname).toBe('/oauth2/v1/logout/success');
    expect(await text(laptop, '#ended-elsewhere')).toBe('Signed out everywhere: 1 other session ended. Every browser and device must sign in again.');
    expect(await laptop.locator('#sign-out-everywhere').count()).toBe(0);
    await checkAtBothWidths(laptop, 'sign-out-everywhere-done');

    // The other browser's next page load: signed out of app-one (its Gatehouse session ended, and the app was told).
    expect(await signedInAt(phone, stack.appOneUrl)).toBe(false);

    await laptop.goto(back);
    await tabTo(laptop, 'back-to-app');
    await Promise.all([laptop.waitForURL(`${stack.appOneUrl}/signed-out`), laptop.keyboard.press('Enter')]);
    expect(await text(laptop, 'h1')).toBe('Signed out');
    expect(violations.flat()).toEqual([]);
  });
});
