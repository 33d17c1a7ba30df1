/**
 * Back in Chromium on the sign-in pages: after a refused password, code and recovery code, Back
 * finds a page of the sign-in (each refusal was answered with a redirect to a GET), never
 * ERR_CACHE_MISS ("Confirm Form Resubmission"), and its form still signs in; so after "Start
 * over" of a TOTP enrollment, a refused passwordless passkey, and a refused account selection
 * and consent (forms tampered with in the page, as nothing else sends them); after a finished
 * sign-in, Back says the user is already signed in and "Continue to <app>" leads to the app;
 * without the session it stays the expired page. Each page axe-clean, photographed at 390 and
 * 1280 px; no CSP violation anywhere. A stack of its own: refusals count against the client IP.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { CODE_SUBMIT, cspViolationsOf, launchBrowser, navigateBy, showMethod, shownTotpSecret, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, nextCode, staleCode, type E2eUser } from '../support/users.ts';

/** A public app that is not first-party (it gets the consent step), with a landing page of its own. */
const THIRD_ID = 'back-third';
let rp: Server;
let rpUri: string;

let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];
const violations: string[][] = [];

beforeAll(async () => {
  rp = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Third</title><main><h1>Third</h1></main></html>');
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpUri = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  stack = await startStack({ name: 'back-button' });
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'client', 'add', THIRD_ID, '--public', '--redirect-uri', rpUri, '--name', 'Third App', '--json'], {
    cwd: stack.dataDir,
    env: stack.authEnv,
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => rp?.close(resolve));
  expect(violations.flat()).toEqual([]);
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  violations.push(cspViolationsOf(page));
  return page;
}

const h1 = async (page: Page) => (await page.locator('h1').textContent())?.trim();
const alert = async (page: Page) => (await page.locator('[role=alert]').textContent())?.trim();
const INTERACTION = /^\/interaction\/[\w-]+$/;

/** A user whose TOTP is enrolled (a first sign-in in a browser of its own), with its recovery codes saved. */
async function enrolledUser(label: string): Promise<E2eUser> {
  const user = await createUser(stack, label);
  const enrolling = await newPage();
  await signIn(enrolling, stack.appOneUrl, user);
  await enrolling.context().close();
  return user;
}

/** Back, answered by the server (not a cache miss): the response of the page it lands on. */
async function back(page: Page): Promise<Response> {
  const response = await page.goBack({ waitUntil: 'load' });
  expect(page.url()).not.toMatch(/^chrome-error:/);
  expect(response).not.toBeNull();
  return response!;
}

describe('Back on the sign-in pages in Chromium', () => {
  it('after a refused password, code and recovery code, Back lands on the sign-in page with a usable form, and the code then signs in', async () => {
    const user = await enrolledUser('backrefused');
    const page = await newPage();
    await page.goto(`${stack.appOneUrl}/`);

    await submitPassword(page, user, 'not-the-password');
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await h1(page)).toBe('Sign in');
    expect(await alert(page)).toBe('Invalid username or password.');
    expect(await page.inputValue('#username')).toBe(user.username);
    await checkAtBothWidths(page, 'back-refused-password');
    // A reload shows the form again without the message, and posts nothing.
    const reloaded = await page.reload({ waitUntil: 'load' });
    expect(reloaded?.status()).toBe(200);
    expect(await page.locator('[role=alert]').count()).toBe(0);
    expect(await page.locator('form:has(#password)').count()).toBe(1);

    await submitPassword(page, user);
    expect(await h1(page)).toBe("Confirm it's you");
    await page.fill('#code', await staleCode(user));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await alert(page)).toBe('That code is not valid. Check the code in your authenticator app and try again.');
    await checkAtBothWidths(page, 'back-refused-code');

    await showMethod(page, '#recovery-code');
    await page.click('summary:has-text("Use a recovery code")');
    await page.fill('#recovery-code', 'aaaa-bbbb-cccc');
    await navigateBy(page, () => page.click('form:has(#recovery-code) button[type=submit]'));
    expect(await alert(page)).toBe('That recovery code is not valid.');
    expect(await page.locator('details.alt-method:has(#recovery-code)').getAttribute('open')).toBe('');

    // Back: the page of the wrong TOTP code was a GET, so it is fetched again, without its message.
    const previous = await back(page);
    expect(previous.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await h1(page)).toBe("Confirm it's you");
    expect(await page.locator('[role=alert]').count()).toBe(0);
    await checkAtBothWidths(page, 'back-after-refused-code');

    await submitCode(page, user);
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
  });

  it('after a finished sign-in, Back says the user is already signed in, and "Continue to app-one" leads to it', async () => {
    const user = await enrolledUser('backsignedin');
    const page = await newPage();
    await signIn(page, stack.appOneUrl, user);

    const response = await back(page);
    expect(response.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await h1(page)).toBe('You are already signed in');
    expect((await page.locator('[role=status]').textContent())?.trim()).toBe(`You are signed in as ${user.username}. This sign-in is finished, so there is nothing more to enter here: continue to app-one.`);
    expect((await page.locator('#way-on').textContent())?.trim()).toBe('Continue to app-one');
    await checkAtBothWidths(page, 'back-already-signed-in');

    await page.focus('#way-on');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
  });

  it('after a finished sign-in whose session is gone, Back is the expired page with its way back to the app', async () => {
    const user = await enrolledUser('backnosession');
    const page = await newPage();
    await signIn(page, stack.appOneUrl, user);
    const context = page.context();
    const kept = (await context.cookies()).filter((cookie) => !cookie.name.startsWith('gh_auth_session'));
    await context.clearCookies();
    await context.addCookies(kept);

    const response = await back(page);
    expect(response.status()).toBe(400);
    expect(await h1(page)).toBe('This sign-in has expired');
    expect((await page.locator('#way-on').textContent())?.trim()).toBe('Back to app-one');
    await checkAtBothWidths(page, 'back-expired-no-session');
  });

  it('after "Start over" of the TOTP enrollment and a refused code, Back lands on the enrollment with the new key, which then signs in', async () => {
    const user = await createUser(stack, 'backstartover');
    const page = await newPage();
    await page.goto(`${stack.appOneUrl}/`);
    await submitPassword(page, user);
    const first = await shownTotpSecret(page);

    await navigateBy(page, () => page.click('#start-over'));
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    const fresh = await shownTotpSecret(page);
    expect(fresh).not.toBe(first);
    expect((await page.locator('.notice').textContent())?.trim()).toBe('This is a new key. Remove the old Gatehouse entry from your authenticator app, then scan this QR code.');
    await checkAtBothWidths(page, 'back-start-over');

    await page.fill('#code', '000000');
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await alert(page)).toBe('That code is not valid. Check the code in your authenticator app and try again.');

    // Back: "Start over" was answered with a redirect, so its page is a GET: the same new key, no notice, nothing posted.
    const previous = await back(page);
    expect(previous.status()).toBe(200);
    expect(await shownTotpSecret(page)).toBe(fresh);
    expect(await page.locator('.notice').count()).toBe(0);
    expect(await page.locator('[role=alert]').count()).toBe(0);
    await checkAtBothWidths(page, 'back-after-start-over');

    user.totpSecret = fresh;
    await page.fill('#code', await nextCode(user));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await h1(page)).toBe('Save your recovery codes');
  });

  it('after a refused passwordless passkey, Back from the next step lands on a page of the sign-in, whose code then signs in', async () => {
    const user = await enrolledUser('backpasskey');
    const page = await newPage();
    // The passkey is only used on the button (no autofill request that would post again on its own).
    await page.context().addInitScript(() => {
      if ('PublicKeyCredential' in window) PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    // A passkey this server never registered: its answer is refused (passkey_unknown, 401).
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' });
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId,
      credential: { credentialId: randomBytes(16).toString('base64'), isResidentCredential: true, rpId: new URL(stack.authUrl).hostname, privateKey: key.toString('base64'), userHandle: randomBytes(16).toString('base64'), signCount: 0 },
    });

    await page.goto(`${stack.appOneUrl}/`);
    await page.waitForSelector('#passkey-sign-in:not([hidden])');
    const refused = page.waitForResponse((response) => new URL(response.url()).pathname.startsWith('/interaction/') && response.request().method() === 'GET');
    await navigateBy(page, () => page.click('#passkey-sign-in'));
    expect((await refused).status()).toBe(401);
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await h1(page)).toBe('Sign in');
    expect(await page.locator('[role=alert]').count()).toBe(1);
    expect((await page.locator('main code').first().textContent())?.trim()).toBe('passkey_unknown');
    await checkAtBothWidths(page, 'back-refused-passkey');

    await submitPassword(page, user);
    expect(await h1(page)).toBe("Confirm it's you");
    // Back: the refused passkey's page was a GET; the sign-in is at its second factor now, so that is what it shows.
    const previous = await back(page);
    expect(previous.status()).toBe(200);
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await h1(page)).toBe("Confirm it's you");
    await checkAtBothWidths(page, 'back-after-refused-passkey');
    await submitCode(page, user);
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
  });

  it('after a refused account selection and a refused consent, Back from the next page is never a cache miss; Allow then reaches the app', async () => {
    const user = await enrolledUser('backselect');
    const page = await newPage();
    await signIn(page, stack.appOneUrl, user);
    const authorize = new URL('/oauth2/v1/authorize', stack.authUrl);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: THIRD_ID,
      redirect_uri: rpUri,
      scope: 'openid profile',
      state: 'back-third',
      prompt: 'select_account',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    await page.goto(authorize.toString());
    expect(await h1(page)).toBe('Choose an account');

    // Only a tampered form sends another choice.
    await page.locator('#select-account-continue').evaluate((button) => button.setAttribute('value', 'both'));
    await navigateBy(page, () => page.click('#select-account-continue'));
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await h1(page)).toBe('Choose an account');
    expect(await alert(page)).toBe('Field "choice" must be "continue" or "another".');
    await checkAtBothWidths(page, 'back-refused-selection');

    // "Continue" leads on to the consent (itself a GET after the post).
    await navigateBy(page, () => page.click('#select-account-continue'));
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await page.locator('#consent-allow').count()).toBe(1);
    // Back onto the refused selection's page: a GET of a finished selection, so the user is signed in.
    const selection = await back(page);
    expect(selection.status()).toBe(200);
    expect(await h1(page)).toBe('You are already signed in');
    await page.goForward({ waitUntil: 'load' });
    expect(await page.locator('#consent-allow').count()).toBe(1);

    await page.locator('#consent-allow').evaluate((button) => button.setAttribute('value', 'maybe'));
    await navigateBy(page, () => page.click('#consent-allow'));
    expect(new URL(page.url()).pathname).toMatch(INTERACTION);
    expect(await alert(page)).toBe('Field "decision" must be "allow" or "deny".');
    await checkAtBothWidths(page, 'back-refused-consent');

    await Promise.all([page.waitForURL((url) => url.href.startsWith(rpUri)), page.click('#consent-allow')]);
    expect(new URL(page.url()).searchParams.get('state')).toBe('back-third');
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    // Back onto the refused consent's page: a GET too.
    const consent = await back(page);
    expect(consent.status()).toBe(200);
    expect(await h1(page)).toBe('You are already signed in');
    await checkAtBothWidths(page, 'back-after-refused-consent');
  });
});
