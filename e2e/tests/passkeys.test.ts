/**
 * Passkeys in a real browser against the whole stack, through Chromium's virtual
 * authenticator (DevTools protocol WebAuthn domain, through playwright-core's CDP session: a
 * CTAP2 platform authenticator with resident keys and user verification). The user signs in with
 * password + TOTP and registers a passkey on the account page (/account/security); then, with the cookies gone,
 * signs in at app-one with the passkey alone and lands on app-one's page; uses it as the second
 * factor after the password; removes it and sees the passkey sign-in refused. When the
 * authenticator refuses (the same key registered twice, user verification failed), the page says
 * so in words.
 * No CSP workaround: every answer of the authorization server is enforced as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, screenshot, showMethod, signIn, submitPassword } from '../support/browser.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
let user: E2eUser;
let cspViolations: string[] = [];

beforeAll(async () => {
  stack = await startStack({ name: 'passkeys' });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
  // Chromium's virtual authenticator answers a conditional (autofill) request at once; the
  // scenarios that click a button turn conditional mediation off with this flag (per origin).
  await context.addInitScript(() => {
    try {
      if (localStorage.getItem('e2e-no-conditional') === '1' && 'PublicKeyCredential' in window) {
        PublicKeyCredential.isConditionalMediationAvailable = async () => false;
      }
    } catch {
      // about:blank has no storage.
    }
  });
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  }));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

/** The credentials the virtual authenticator holds. */
async function credentials() {
  return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
}

/** Forgets every session (auth server and apps), keeping the authenticator. */
async function signOutEverywhere() {
  await context.clearCookies();
}

/** Turns the login page's autofill request on or off (the buttons stay). */
async function conditionalMediation(on: boolean) {
  await page.goto(`${stack.authUrl}/static/gatehouse.css`);
  await page.evaluate((off) => (off ? localStorage.setItem('e2e-no-conditional', '1') : localStorage.removeItem('e2e-no-conditional')), !on);
}

describe('issue 11, passkeys in Chromium with a virtual authenticator', () => {
  it('registers a passkey on the account page, then signs in passwordless at app-one with the button and lands on its page', async () => {
    await conditionalMediation(false);
    user = await createUser(stack, 'passkey');
    await signIn(page, stack.appOneUrl, user);
    await page.goto(`${stack.authUrl}/account/security`);
    expect((await page.locator('#passkey-list').textContent())?.trim()).toBe('No passkey is registered yet.');
    await page.fill('#passkey-name', 'E2E virtual key');
    await Promise.all([page.waitForEvent('load'), page.click('#add-passkey')]);
    await page.waitForSelector('#passkey-list li');
    expect(await page.locator('#passkey-list li').count()).toBe(1);
    expect(await page.locator('#passkey-list li').textContent()).toContain('E2E virtual key');
    expect(await page.locator('#passkey-list li').textContent()).toContain('last used never');
    const held = await credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    await screenshot(page, 'passkeys-1-registered');

    await signOutEverywhere();
    await page.goto(`${stack.appOneUrl}/`);
    expect((await page.locator('h1').textContent())?.trim()).toBe('Sign in');
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 }), page.click('#passkey-sign-in')]);
    expect((await page.locator('#user-name').textContent())?.trim()).toBe(user.name);
    await screenshot(page, 'passkeys-2-passwordless');

    await page.goto(`${stack.authUrl}/account/security`);
    expect(await page.locator('#passkey-list li').textContent()).not.toContain('last used never');
  });

  it('says clearly when the authenticator refuses: a second registration on the same key, a failed user verification', async () => {
    // Still signed in by the passkey of the test above.
    await page.goto(`${stack.authUrl}/account/security`);
    await page.fill('#passkey-name', 'Same key again');
    await page.click('#add-passkey');
    // The options exclude the registered credential, so the authenticator refuses (InvalidStateError).
    await expect.poll(() => page.locator('form[data-passkey="register"] [data-passkey-status]').textContent(), { timeout: 20_000 })
      .toBe('This authenticator already holds a passkey for your account.');
    expect(await page.locator('#passkey-list li').count()).toBe(1);

    await signOutEverywhere();
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    try {
      await page.goto(`${stack.appOneUrl}/`);
      await page.waitForSelector('#passkey-sign-in:not([hidden])');
      await page.click('#passkey-sign-in');
      // Passwordless requires user verification; the authenticator fails it (NotAllowedError).
      await expect.poll(() => page.locator('form[data-passkey="authenticate"] [data-passkey-status]').textContent(), { timeout: 20_000 })
        .toBe('The passkey request was cancelled, timed out, or refused by your authenticator.');
      expect(page.url().startsWith(`${stack.authUrl}/`)).toBe(true);
    } finally {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    }
  });

  it('signs in through the username field\'s autofill (conditional mediation) where the browser offers it', async () => {
    await conditionalMediation(true);
    await signOutEverywhere();
    // The virtual authenticator picks the passkey for the autofill request as soon as the login page asks.
    await page.goto(`${stack.appOneUrl}/`);
    await page.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 });
    await page.waitForSelector('#user-name');
    expect((await page.locator('#user-name').textContent())?.trim()).toBe(user.name);
    await conditionalMediation(false);
  });

  it('uses the passkey as the second factor after the password', async () => {
    await signOutEverywhere();
    await page.goto(`${stack.appOneUrl}/`);
    await submitPassword(page, user);
    expect((await page.locator('h1').textContent())?.trim()).toBe("Confirm it's you");
    await showMethod(page, '#use-passkey');
    await page.waitForSelector('#use-passkey:not([hidden])');
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 }), page.click('#use-passkey')]);
    expect((await page.locator('#user-name').textContent())?.trim()).toBe(user.name);
  });

  it('removes the passkey, after which the passkey sign-in is refused', async () => {
    await page.goto(`${stack.authUrl}/account/security`);
    // Remove opens a confirmation page; only its Confirm removes the passkey.
    await Promise.all([page.waitForURL(/\/account\/security\/passkeys\/remove\?/), page.click('#passkey-list li button.danger')]);
    expect((await page.locator('h1').textContent())?.trim()).toBe('Remove this passkey?');
    expect((await page.locator('#confirm-subject').textContent())?.trim()).toBe('E2E virtual key');
    await Promise.all([page.waitForURL(`${stack.authUrl}/account/security`), page.click('#confirm')]);
    expect((await page.locator('#notice').textContent())?.trim()).toBe('The passkey was removed: it no longer signs you in.');
    expect((await page.locator('#passkey-list').textContent())?.trim()).toBe('No passkey is registered yet.');

    await signOutEverywhere();
    await page.goto(`${stack.appOneUrl}/`);
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
    // The authenticator still holds the key; the server no longer knows it.
    expect(await credentials()).toHaveLength(1);
    await Promise.all([page.waitForEvent('load'), page.click('#passkey-sign-in')]);
    expect(await page.locator('.error').textContent()).toContain('This passkey is not registered with Gatehouse');
    expect(page.url().startsWith(`${stack.authUrl}/`)).toBe(true);
    await screenshot(page, 'passkeys-3-refused');
    expect(cspViolations).toEqual([]);
  });
});
