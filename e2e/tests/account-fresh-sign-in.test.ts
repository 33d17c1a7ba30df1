/**
 * The fresh sign-in before a security change, in Chromium, by keyboard, on a stack of its own
 * with the default AUTH_ACCOUNT_REAUTH_MAX_AGE (600 s) and the authorization server's test clock
 * (support/test-clock.ts), which the test moves past that age instead of waiting:
 * - a sign-in older than that which asks for new recovery codes is taken through the login again
 *   (password and second factor, although the session is live) and comes back to the
 *   confirmation page, whose Confirm then issues the codes;
 * - "Add a passkey" (Chromium's virtual authenticator) after the sign-in grew old says so in words
 *   with the way on, "Sign in again", which leads through the login back to the passkeys, where
 *   the passkey is then added.
 * Each step is first taken with a fresh sign-in, so it is the clock that makes the difference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { activate, expectInViewport, PHONE, tabTo } from '../support/keyboard.ts';
import { authClock, TEST_CLOCK_ENV, type AuthClock } from '../support/test-clock.ts';
import { createUser, type E2eUser } from '../support/users.ts';

/** AUTH_ACCOUNT_REAUTH_MAX_AGE's default, seconds. */
const MAX_AGE_S = 600;

let stack: Stack;
let clock: AuthClock;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
let user: E2eUser;
let csp: string[];

beforeAll(async () => {
  stack = await startStack({ name: 'account-fresh-sign-in', authEnv: TEST_CLOCK_ENV });
  clock = authClock(stack);
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  csp = cspViolationsOf(page);
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  }));
  user = await createUser(stack, 'fresh');
  // The user's authenticator app keeps the server's time.
  user.clock = clock;
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

  it('"Add a passkey" after the sign-in grew old says so, and "Sign in again" leads back to the passkeys, where it is added', async () => {
    const added = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length;
    await page.setViewportSize(PHONE);
    await page.goto(`${stack.authUrl}/account/security`);
    expect(await text('#passkey-list')).toBe('No passkey is registered yet.');
    await clock.advance(MAX_AGE_S + 1);

    // By keyboard: the name, then Enter on "Add a passkey".
    await page.waitForSelector('#add-passkey:not([hidden])');
    await tabTo(page, '#passkey-name');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Old session key');
    await tabTo(page, '#add-passkey');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#passkey-reauth:not([hidden])');
    expect(await text('#passkey-reauth')).toBe('Adding a passkey needs a recent sign-in, and yours is older. Sign in again, then add the passkey here. Sign in again');
    expect(await text('[data-passkey-status]')).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('passkey-reauth-link');
    await expectInViewport(page, '#passkey-reauth-link');
    expect(await added()).toBe(0);
    expect(await text('#passkey-list')).toBe('No passkey is registered yet.');
    await checkAtBothWidths(page, 'account-fresh-sign-in-passkey-stale');
    await page.setViewportSize(PHONE);

    await page.focus('#passkey-reauth-link');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await text('h1')).toBe('Sign in');
    const authorize = new URL(page.url());
    expect(authorize.searchParams.get('prompt')).toBe('login');
    expect(authorize.searchParams.get('max_age')).toBe(String(MAX_AGE_S));
    expect(authorize.searchParams.get('state')).toBe('/account/security#passkeys');
    await submitPassword(page, user);
    await submitCode(page, user);
    await page.waitForURL(`${stack.authUrl}/account/security#passkeys`);
    expect(await text('h1')).toBe('Security');
    await expectInViewport(page, '#passkeys h2');

    await page.waitForSelector('#add-passkey:not([hidden])');
    await page.fill('#passkey-name', 'Fresh session key');
    await navigateBy(page, () => page.click('#add-passkey'));
    await page.waitForSelector('#passkey-list li');
    expect(await text('#passkey-list li strong')).toBe('Fresh session key');
    expect(await added()).toBe(1);
    expect(csp).toEqual([]);
  });
});
