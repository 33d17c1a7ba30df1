/**
 * The self-service account pages in a real browser against the whole stack (one stack for the
 * file), by keyboard: context A signs in at app-one and follows its "Manage your account" link
 * to the Profile page, which offers "Back to app-one"; context B, with no session, opens /account
 * and is taken through the login and back. Every section page and confirmation page passes axe
 * and is photographed at 390 and 1280 px. A ends B's session alone from the Sessions page (a
 * confirmation first), then, B signed in again, signs out all other sessions (a confirmation
 * first); each message is inside the viewport after the action, at 390 px and at 1280 px. A removes a
 * push device (enrolled as the web authenticator does) after its confirmation page. A
 * changes the password (a listed password is refused first, its message in view), after which
 * B's login refuses the old password and takes the new one; A re-enrolls TOTP (a wrong code
 * first, its message in view; then the current code, the same key after a reload, and the new
 * app's code), and a fresh
 * browser signs in with the new app. No CSP workaround: every answer is enforced as sent.
 * TOTP codes: each step is accepted once per account and only the current step ±1, so the test
 * starts one step back and uses at most three codes of the first secret.
 */
import { webcrypto } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { generate } from 'otplib';
import { checkAtBothWidths } from '../support/axe.ts';
import { CODE_SUBMIT, launchBrowser, navigateBy, shownTotpSecret, screenshot, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { activate, DESKTOP, expectInViewport, PHONE, typeInto } from '../support/keyboard.ts';
import { createUser, nextCode, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let contextA: BrowserContext;
let contextB: BrowserContext;
let a: Page;
let b: Page;
let user: E2eUser;
const cspViolations: string[] = [];

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  return page;
}

beforeAll(async () => {
  stack = await startStack({ name: 'account' });
  browser = await launchBrowser();
  contextA = await browser.newContext();
  contextB = await browser.newContext();
  a = await newPage(contextA);
  b = await newPage(contextB);
  user = await createUser(stack, 'account');
});

afterAll(async () => {
  await contextA?.close();
  await contextB?.close();
  await browser?.close();
  await stack?.stop();
});

const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent())?.trim();

describe('the account pages in Chromium', () => {
  it('A follows "Manage your account" from app-one to the Profile page, with the way back; B is taken through the login and back to /account', async () => {
    // The first sign-in enrolls TOTP; its code is of the previous step so that three codes fit in the window.
    await a.goto(`${stack.appOneUrl}/`);
    await submitPassword(a, user);
    user.totpSecret = await shownTotpSecret(a);
    // (Near the end of a step the next one is about to start, and the current step does as well.)
    const now = Date.now();
    user.lastStep = Math.floor(now / 30_000) - (now % 30_000 > 27_000 ? 0 : 1);
    await a.fill('#code', await generate({ secret: user.totpSecret, epoch: user.lastStep * 30, algorithm: 'sha1', digits: 6, period: 30 }));
    await navigateBy(a, () => a.click(CODE_SUBMIT));
    await Promise.all([a.waitForURL(`${stack.appOneUrl}/`), a.click('#codes-saved')]);

    await activate(a, '#manage-account');
    expect(new URL(a.url()).pathname).toBe('/account');
    expect(await text(a, 'h1')).toBe('Your account');
    expect(await text(a, '#profile-username')).toBe(user.username);
    expect(await text(a, '#profile-name')).toBe(user.name);
    expect(await text(a, '#profile-email')).toBe(user.email);
    expect(await text(a, '#profile-groups')).toBe(user.groups.join(', '));
    expect(await text(a, '#back-to-app')).toBe('Back to app-one');
    expect(await a.locator('#back-to-app').getAttribute('href')).toBe(`${stack.appOneUrl}/`);
    expect(await a.locator('nav.account-nav a[aria-current=page]').textContent()).toBe('Profile');
    await checkAtBothWidths(a, 'account-profile');

    // Every section by keyboard, each with the way back to app-one.
    for (const [id, title, name] of [['#nav-security', 'Security', 'account-security'], ['#nav-sessions', 'Sessions', 'account-sessions'], ['#nav-apps', 'Apps', 'account-apps']] as const) {
      await activate(a, id);
      expect(await text(a, 'h1')).toBe(title);
      expect(await text(a, '#back-to-app')).toBe('Back to app-one');
      await checkAtBothWidths(a, name);
    }
    await activate(a, '#back-to-app');
    expect(a.url()).toBe(`${stack.appOneUrl}/`);

    await b.goto(`${stack.authUrl}/account`);
    expect(await text(b, 'h1')).toBe('Sign in');
    expect(await text(b, 'p.muted strong')).toBe('Your Gatehouse account');
    await submitPassword(b, user);
    await submitCode(b, user);
    await b.waitForURL(`${stack.authUrl}/account`);
    expect(await text(b, '#profile-username')).toBe(user.username);
    expect(await b.locator('#back-to-app').count()).toBe(0);
    await screenshot(b, 'account-1-after-sign-in');
  });

  it("A ends B's session alone, after a confirmation; the message is in view at 390 px; B must sign in again", async () => {
    await a.setViewportSize(PHONE);
    await a.goto(`${stack.authUrl}/account/sessions`);
    expect(await a.locator('#session-list li').count()).toBe(2);
    expect(await text(a, '#session-list li[data-current] strong')).toBe('Chrome on Linux');
    expect(await text(a, '#session-list li:not([data-current]) strong')).toBe('Chrome on Linux');
    // The two "Chrome on Linux" sessions are told apart: this one is marked, each shows its address and times.
    expect(await text(a, '#session-list li[data-current] .current')).toBe('(this session)');
    expect(await a.locator('#session-list li .session-ip').count()).toBe(2);
    await activate(a, '#session-list li:not([data-current]) button.danger');
    expect(new URL(a.url()).pathname).toBe('/account/sessions/end');
    expect(await text(a, 'h1')).toBe('Sign out this session?');
    expect(await text(a, '#confirm-subject')).toMatch(/^Chrome on Linux from /);
    await checkAtBothWidths(a, 'account-confirm-end-session');
    await a.setViewportSize(PHONE);
    await activate(a, '#confirm');
    expect(new URL(a.url()).pathname).toBe('/account/sessions');
    expect(await text(a, '#notice')).toBe('The session was signed out. That browser must sign in again.');
    expect(await a.locator('#notice').getAttribute('role')).toBe('status');
    await expectInViewport(a, '#notice');
    expect(await a.locator('#session-list li').count()).toBe(1);
    await screenshot(a, 'account-2-session-ended-390');

    await b.goto(`${stack.authUrl}/account`);
    expect(await text(b, 'h1')).toBe('Sign in');
    expect(b.url().startsWith(`${stack.authUrl}/oauth2/v1/authorize?`)).toBe(true);
  });

  it('A signs all other sessions out after a confirmation; the message is in view at 1280 px', async () => {
    await submitPassword(b, user);
    await submitCode(b, user);
    await b.waitForURL(`${stack.authUrl}/account`);

    await a.setViewportSize(DESKTOP);
    await a.goto(`${stack.authUrl}/account/sessions`);
    expect(await a.locator('#session-list li').count()).toBe(2);
    await activate(a, '#sign-out-others');
    expect(await text(a, 'h1')).toBe('Sign out all other sessions?');
    expect(await text(a, '#confirm-consequence')).toBe('1 other session ends, with the app sign-ins they hold: those browsers must sign in again. This browser stays signed in.');
    await checkAtBothWidths(a, 'account-confirm-sign-out-others');
    // Cancel changes nothing.
    await activate(a, '#cancel');
    expect(await a.locator('#session-list li').count()).toBe(2);
    await activate(a, '#sign-out-others');
    await a.setViewportSize(DESKTOP);
    await activate(a, '#confirm');
    expect(await text(a, '#notice')).toBe('Your other sessions were signed out.');
    await expectInViewport(a, '#notice');
    expect(await a.locator('#sign-out-others').isDisabled()).toBe(true);

    await b.goto(`${stack.authUrl}/account`);
    expect(await text(b, 'h1')).toBe('Sign in');
  });

  it('A removes a push device after a confirmation; the message is in view at 390 px', async () => {
    // The device enrolls the way the web authenticator does (a P-256 key signing the code's normal form).
    const cookie = (await contextA.cookies(stack.authUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
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

    await a.setViewportSize(PHONE);
    await a.goto(`${stack.authUrl}/account/security`);
    expect(await text(a, '#device-list li strong')).toBe('E2E phone');
    await activate(a, '#device-list li button.danger');
    expect(new URL(a.url()).pathname).toBe('/account/security/devices/remove');
    expect(await text(a, 'h1')).toBe('Remove this device?');
    expect(await text(a, '#confirm-subject')).toBe('E2E phone');
    await checkAtBothWidths(a, 'account-confirm-remove-device');
    await a.setViewportSize(PHONE);
    await activate(a, '#confirm');
    expect(new URL(a.url()).pathname).toBe('/account/security');
    expect(await text(a, '#notice')).toBe('The device was removed: it can no longer approve your sign-ins.');
    await expectInViewport(a, '#notice');
    expect(await text(a, '#device-list')).toBe('No device is enrolled yet.');
  });

  it('A changes the password: a listed password is refused with its message in view at 390 px, then the new one is set (in view at 1280 px) and works', async () => {
    await a.setViewportSize(PHONE);
    await a.goto(`${stack.authUrl}/account/security`);
    await typeInto(a, '#current-password', user.password);
    await typeInto(a, '#new-password', '1qaz2wsx3edc');
    await typeInto(a, '#new-password-confirm', '1qaz2wsx3edc');
    await activate(a, '#change-password');
    expect(await text(a, '#error p')).toBe('This password is on the list of common or breached passwords. Choose another.');
    expect(await text(a, '#error code')).toBe('password_common');
    expect(await a.locator('#error').getAttribute('role')).toBe('alert');
    await expectInViewport(a, '#error');
    await screenshot(a, 'account-3-password-refused-390');

    await a.setViewportSize(DESKTOP);
    const fresh = `a brand new passphrase ${Date.now()}`;
    await typeInto(a, '#current-password', user.password);
    await typeInto(a, '#new-password', fresh);
    await typeInto(a, '#new-password-confirm', fresh);
    await activate(a, '#change-password');
    expect(new URL(a.url()).pathname).toBe('/account/security');
    expect(await text(a, '#notice')).toBe('Your password was changed. Your other sessions were signed out.');
    await expectInViewport(a, '#notice');
    await screenshot(a, 'account-3-password-changed-1280');

    // B (at the login page since the sign-out) is refused the old password and passes with the new one.
    await submitPassword(b, user);
    expect(await text(b, 'p.error')).toBe('Invalid username or password.');
    user.password = fresh;
    await submitPassword(b, user);
    expect(await text(b, 'h1')).toBe("Confirm it's you");
  });

  it("A re-enrolls TOTP: a wrong code's message is in view; the current code, then the new app's code; a fresh browser signs in with the new app", async () => {
    await a.setViewportSize(PHONE);
    await a.goto(`${stack.authUrl}/account/security`);
    await typeInto(a, '#current-totp-code', '000000');
    await activate(a, '#start-totp');
    expect(await text(a, '#error code')).toBe('invalid_code');
    await expectInViewport(a, '#error');

    await a.setViewportSize(DESKTOP);
    await typeInto(a, '#current-totp-code', await nextCode(user));
    await activate(a, '#start-totp');
    expect(await a.locator('#error').count()).toBe(0);
    expect(await text(a, '#totp h2')).toBe('Set up your new authenticator app');
    expect(await a.locator('#totp figure.qr svg').count()).toBe(1);
    expect(new URL(a.url()).pathname).toBe('/account/security/totp');
    const secret = await text(a, '#new-totp-secret');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    // A reload shows the same key: the one scanned stays the one to confirm.
    await a.reload();
    expect(await text(a, '#new-totp-secret')).toBe(secret);
    await checkAtBothWidths(a, 'account-new-totp');
    await a.setViewportSize(DESKTOP);

    // The server forgets the old secret's used steps with it: the new app starts at the current step.
    user.totpSecret = secret!;
    user.lastStep = undefined;
    await typeInto(a, '#new-totp-code', await nextCode(user));
    await activate(a, '#confirm-totp');
    expect(new URL(a.url()).pathname).toBe('/account/security');
    expect(await text(a, '#notice')).toBe('Your new authenticator app is set up. Codes from the previous one stop working, and your other sessions were signed out.');
    await expectInViewport(a, '#notice');

    const contextC = await browser.newContext();
    try {
      const c = await newPage(contextC);
      await signIn(c, stack.appOneUrl, user);
      expect((await c.locator('#user-name').textContent())?.trim()).toBe(user.name);
    } finally {
      await contextC.close();
    }
    expect(cspViolations).toEqual([]);
  });
});
