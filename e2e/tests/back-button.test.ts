/**
 * Back in Chromium on the sign-in pages: after a refused password, code and recovery code, Back
 * finds a page of the sign-in (each refusal was answered with a redirect to a GET), never
 * ERR_CACHE_MISS ("Confirm Form Resubmission"), and its form still signs in; after a finished
 * sign-in, Back says the user is already signed in and "Continue to <app>" leads to the app;
 * without the session it stays the expired page. Each page axe-clean, photographed at 390 and
 * 1280 px; no CSP violation anywhere. A stack of its own: refusals count against the client IP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { CODE_SUBMIT, cspViolationsOf, launchBrowser, navigateBy, showMethod, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, staleCode, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];
const violations: string[][] = [];

beforeAll(async () => {
  stack = await startStack({ name: 'back-button' });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
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
});
