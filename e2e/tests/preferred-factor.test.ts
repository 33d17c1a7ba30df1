/**
 * The preferred second factor in Chromium against the whole stack, with TOTP, a passkey (Chromium's
 * virtual authenticator) and a push device enrolled: the second-factor page is headed "Confirm it's
 * you" and offers one method first and alone (the one used last, or the one set as preferred on the
 * account page), the others behind "Try another method", opened by keyboard; Back after the code step
 * of a first sign-in shows a page of the server, not the browser's "Confirm Form Resubmission"
 * (ERR_CACHE_MISS). A passkey-only account's password-reset link asks for the passkey. axe-core
 * and screenshots at 390 and 1280 px on each page.
 */
import { webcrypto } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { tabTo } from '../support/admin-console.ts';
import { CODE_SUBMIT, cspViolationsOf, launchBrowser, navigateBy, shownTotpSecret, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { createUser, nextCode, removeTotpAndRecoveryCodes, resetLink, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let user: E2eUser;
let cspViolations: string[] = [];

beforeAll(async () => {
  stack = await startStack({ name: 'preferred-factor' });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
  // No autofill (conditional) passkey request on the login page: the password step is typed.
  await context.addInitScript(() => {
    if ('PublicKeyCredential' in window) PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  });
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  user = await createUser(stack, 'prefers');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

const h1 = async () => (await page.locator('h1').textContent())?.trim();

/** Enrolls a push device for the signed-in browser's account the way the web authenticator does (a P-256 key signing the code's normal form). */
async function enrollPushDevice(): Promise<void> {
  const cookie = (await context.cookies(stack.authUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
  const issued = await fetch(`${stack.authUrl}/authenticator/devices/enroll`, { method: 'POST', headers: { cookie, accept: 'application/json', 'content-type': 'application/json' }, body: '{}' });
  expect(issued.status).toBe(201);
  const { enrollment_code: code } = (await issued.json()) as { enrollment_code: string };
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const jwk = await webcrypto.subtle.exportKey('jwk', keys.publicKey);
  const signature = Buffer.from(await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, Buffer.from(`gatehouse-authenticator-v1.enroll.${code.toUpperCase().replace(/[\s-]+/g, '')}`))).toString('base64url');
  const registered = await fetch(`${stack.authUrl}/authenticator/api/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ code, name: 'E2E phone', public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, signature }),
  });
  expect(registered.status).toBe(201);
}

/** A new sign-in at app-one up to the second-factor page. */
async function toSecondFactor(): Promise<void> {
  await context.clearCookies();
  await page.goto(`${stack.appOneUrl}/`);
  await submitPassword(page, user);
  expect(new URL(page.url()).pathname).toMatch(/^\/interaction\/[\w-]+$/);
}

const visible = async (selector: string) => page.locator(selector).isVisible();

describe('issue 34, the preferred factor in Chromium', () => {
  it('a first sign-in: Back after the code and "I have saved them" shows a page of the server, not ERR_CACHE_MISS', async () => {
    await page.goto(`${stack.appOneUrl}/`);
    await submitPassword(page, user);
    user.totpSecret = await shownTotpSecret(page);
    await page.fill('#code', await nextCode(user));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    // Post/redirect/get: the recovery codes have an address of their own.
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\/[\w-]+$/);
    expect(await h1()).toBe('Save your recovery codes');
    await navigateBy(page, () => page.click('#codes-saved'));
    await page.waitForURL(`${stack.appOneUrl}/`);

    await page.goBack();
    await page.waitForLoadState('load');
    expect(page.url().startsWith(`${stack.authUrl}/interaction/`)).toBe(true);
    expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/ERR_CACHE_MISS|Confirm Form Resubmission/);
    expect(await h1()).toBe('You are already signed in');
    await checkAtBothWidths(page, 'preferred-factor-back-after-code');
    // Its way on goes back to the app, still signed in.
    await page.focus('#way-on');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    await page.waitForURL(`${stack.appOneUrl}/`);
  });

  it('with TOTP, a passkey and push: the code used last comes first and alone; "Try another method" by keyboard shows the others, recovery codes last', async () => {
    await page.goto(`${stack.authUrl}/account/security`);
    await page.fill('#passkey-name', 'E2E virtual key');
    await Promise.all([page.waitForEvent('load'), page.click('#add-passkey')]);
    await page.waitForSelector('#passkey-list li');
    await enrollPushDevice();

    await toSecondFactor();
    expect(await h1()).toBe("Confirm it's you");
    expect(await visible('#code')).toBe(true);
    for (const other of ['#send-push', '#use-passkey', '#recovery-code', 'summary:has-text("Use a recovery code")']) expect(await visible(other)).toBe(false);
    await checkAtBothWidths(page, 'preferred-factor-totp-first');

    // Keyboard only: from the code field (focused on load) to "Try another method", Enter opens it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('code');
    await tabTo(page, '#try-another', 5);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#use-passkey:not([hidden])');
    expect(await visible('#send-push')).toBe(true);
    expect(await visible('summary:has-text("Use a recovery code")')).toBe(true);
    const order = await page.locator('#other-methods').evaluate((el) => Array.from(el.querySelectorAll('#send-push, #use-passkey, details summary'), (e) => e.textContent?.trim()));
    expect(order).toEqual(['Try another method', 'Send a push to my authenticator', 'Use a passkey or security key', 'Use a recovery code']);
    await checkAtBothWidths(page, 'preferred-factor-other-methods');
    await tabTo(page, '#use-passkey', 5);
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 }), page.keyboard.press('Enter')]);
    expect((await page.locator('#user-name').textContent())?.trim()).toBe(user.name);
  });

  it('the passkey passed last: the next sign-in offers it first and alone, with no code heading', async () => {
    await toSecondFactor();
    expect(await h1()).toBe("Confirm it's you");
    await page.waitForSelector('#use-passkey:not([hidden])');
    expect(await page.evaluate(() => document.body.innerText)).not.toContain('6-digit');
    expect(await visible('#code')).toBe(false);
    expect(await visible('#send-push')).toBe(false);
    await checkAtBothWidths(page, 'preferred-factor-passkey-first');
    await tabTo(page, '#use-passkey', 10);
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 }), page.keyboard.press('Enter')]);
  });

  it('the preference set on the account page changes the order, until set back to the one used last', async () => {
    await page.goto(`${stack.authUrl}/account/security#preferred-factor`);
    expect(await page.locator('#preferred-factor-choice').inputValue()).toBe('last_used');
    await page.focus('#preferred-factor-choice');
    await page.selectOption('#preferred-factor-choice', 'push');
    await tabTo(page, '#save-preferred-factor', 3);
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await page.locator('#notice').textContent()).toBe('Saved. Your next sign-in offers this method first.');
    expect(await page.locator('#preferred-factor-choice').inputValue()).toBe('push');
    await checkAtBothWidths(page, 'preferred-factor-account');

    await toSecondFactor();
    expect(await h1()).toBe("Confirm it's you");
    expect(await visible('#send-push')).toBe(true);
    expect(await visible('#code')).toBe(false);
    expect(await visible('#use-passkey')).toBe(false);
    await checkAtBothWidths(page, 'preferred-factor-push-first');
    // The code from "Try another method" still signs in; the preference stays.
    await submitCode(page, user);
    await page.waitForURL(`${stack.appOneUrl}/`);
    await toSecondFactor();
    expect(await visible('#send-push')).toBe(true);
    expect(await visible('#code')).toBe(false);
    await submitCode(page, user);
    await page.waitForURL(`${stack.appOneUrl}/`);

    await page.goto(`${stack.authUrl}/account/security#preferred-factor`);
    await page.selectOption('#preferred-factor-choice', 'last_used');
    await navigateBy(page, () => page.click('#save-preferred-factor'));
    await toSecondFactor();
    expect(await visible('#code')).toBe(true);
    expect(await visible('#send-push')).toBe(false);
    expect(cspViolations).toEqual([]);
  });

  it("a passkey-only account's password-reset link asks for the passkey, which sets the new password", async () => {
    const owner = await createUser(stack, 'keyonly');
    await context.clearCookies();
    await signIn(page, stack.appOneUrl, owner);
    await page.goto(`${stack.authUrl}/account/security`);
    await page.fill('#passkey-name', 'Reset key');
    await Promise.all([page.waitForEvent('load'), page.click('#add-passkey')]);
    await page.waitForSelector('#passkey-list li');
    // An operator removed the authenticator app and the codes are gone: the passkey is the only factor.
    await removeTotpAndRecoveryCodes(stack, owner.username);
    const link = resetLink(stack, owner.username);

    await context.clearCookies();
    await page.goto(link);
    expect(await h1()).toBe('Choose a new password');
    await page.waitForSelector('#reset-passkey:not([hidden])');
    expect(await page.locator('#reset-code').count()).toBe(0);
    await checkAtBothWidths(page, 'preferred-factor-reset-passkey');
    // Without the passkey the form is refused with a way on.
    const fresh = 'a passkey-confirmed passphrase';
    await page.fill('#reset-new-password', fresh);
    await page.fill('#reset-new-password-confirm', fresh);
    await navigateBy(page, () => page.click('#reset-password'));
    expect(await page.locator('#reset-error').textContent()).toBe('Confirm it is you with your passkey or security key: press "Use my passkey and set the password".');
    await checkAtBothWidths(page, 'preferred-factor-reset-passkey-required');
    await page.fill('#reset-new-password', fresh);
    await page.fill('#reset-new-password-confirm', fresh);
    await page.waitForSelector('#reset-passkey:not([hidden])');
    await tabTo(page, '#reset-passkey', 10);
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await h1()).toBe('Password changed');
    await checkAtBothWidths(page, 'preferred-factor-reset-done');

    // The new password alone adds no factor: the sign-in asks for the passkey, the account's
    // only one, and offers no authenticator-app set-up or code.
    await page.goto(`${stack.appOneUrl}/`);
    await submitPassword(page, { ...owner, password: fresh });
    expect(await h1()).toBe("Confirm it's you");
    await page.waitForSelector('#use-passkey:not([hidden])');
    expect(await page.locator('#totp-factor').count()).toBe(0);
    expect(cspViolations).toEqual([]);
  });
});
