/**
 * The fresh sign-in before a security change, in Chromium, by keyboard, on a stack of its own
 * with the default AUTH_ACCOUNT_REAUTH_MAX_AGE (600 s) and the authorization server's test clock
 * (support/test-clock.ts), which the test moves past that age instead of waiting:
 * a sign-in older than that which asks for new recovery codes is taken through the login again
 * (password and second factor, although the session is live) and comes back to the confirmation
 * page, whose Confirm then issues the codes. The step is first taken with a fresh sign-in, so it
 * is the clock that makes the difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { cspViolationsOf, launchBrowser, screenshot, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { activate, PHONE } from '../support/keyboard.ts';
import { authClock, TEST_CLOCK_ENV, type AuthClock } from '../support/test-clock.ts';
import { createUser, type E2eUser } from '../support/users.ts';

/** AUTH_ACCOUNT_REAUTH_MAX_AGE's default, seconds. */
const MAX_AGE_S = 600;

let stack: Stack;
let clock: AuthClock;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let csp: string[];

beforeAll(async () => {
  stack = await startStack({ name: 'account-fresh-sign-in', authEnv: TEST_CLOCK_ENV });
  clock = authClock(stack);
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  csp = cspViolationsOf(page);
  user = await createUser(stack, 'fresh');
  // The user's authenticator app keeps the server's time.
  user.clock = clock.now;
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();

describe('a fresh sign-in before security changes, in Chromium', () => {
  it('an old sign-in asking for new recovery codes signs in again and comes back to the confirmation', async () => {
    await signIn(page, stack.appOneUrl, user);
    await page.setViewportSize(PHONE);
    await page.goto(`${stack.authUrl}/account/security`);
    expect(await text('h1')).toBe('Security');
    // A fresh sign-in goes straight to the confirmation.
    await activate(page, '#new-recovery-codes');
    expect(await text('h1')).toBe('Create new recovery codes?');
    await page.goto(`${stack.authUrl}/account/security`);

    // Reading the account needs no fresh sign-in; a change does once the sign-in is older than the setting.
    await clock.advance(MAX_AGE_S + 1);
    await page.reload();
    expect(await text('h1')).toBe('Security');
    await activate(page, '#new-recovery-codes');
    expect(await text('h1')).toBe('Sign in');
    const authorize = new URL(page.url());
    expect(authorize.pathname).toBe('/oauth2/v1/authorize');
    expect(authorize.searchParams.get('prompt')).toBe('login');
    expect(authorize.searchParams.get('max_age')).toBe(String(MAX_AGE_S));
    expect(authorize.searchParams.get('state')).toBe('/account/security/recovery-codes');
    await checkAtBothWidths(page, 'account-fresh-sign-in-login');
    await page.setViewportSize(PHONE);

    await submitPassword(page, user);
    await submitCode(page, user);
    await page.waitForURL(`${stack.authUrl}/account/security/recovery-codes`);
    expect(await text('h1')).toBe('Create new recovery codes?');
    await screenshot(page, 'account-fresh-sign-in-confirm-390');
    await activate(page, '#confirm');
    expect(await text('h1')).toBe('New recovery codes');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    expect(csp).toEqual([]);
  });
});
