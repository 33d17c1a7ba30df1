/**
 * The sign-in pages in Chromium against the whole stack, by keyboard only, each checked with
 * axe-core and photographed at 390 and 1280 px: the login and second-factor pages name app-one by
 * its display name with its logo (registered with `authctl client update --name --logo-uri`, an SVG
 * this test serves from another loopback origin, which the page's CSP allows on that page only);
 * two tabs sign in to two apps at once; Back after signing in leads on instead of resubmitting a
 * form; a sign-in page whose cookies are gone ends on a page that leads back to the app; the 404
 * page and an unknown app's page are human pages with a way on. No CSP violation anywhere.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, shownTotpSecret, signIn } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, nextCode, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let logoServer: Server;
let logoUri: string;
const contexts: BrowserContext[] = [];
const violations: string[][] = [];

const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80" viewBox="0 0 80 80"><rect width="80" height="80" rx="16" fill="#0f766e"/><path d="M20 56 40 20l20 36z" fill="#fff"/></svg>';

beforeAll(async () => {
  logoServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/svg+xml' });
    res.end(LOGO);
  });
  await new Promise<void>((resolve) => logoServer.listen(0, '127.0.0.1', resolve));
  logoUri = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}/app-one.svg`;
  stack = await startStack({ name: 'sign-in-pages' });
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'client', 'update', 'app-one', '--name', 'App One', '--logo-uri', logoUri, '--json'], { cwd: stack.dataDir, env: stack.authEnv });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => logoServer?.close(resolve));
  expect(violations.flat()).toEqual([]);
});

async function newPage(context?: BrowserContext): Promise<Page> {
  const owner = context ?? (await browser.newContext());
  if (!context) contexts.push(owner);
  const page = await owner.newPage();
  violations.push(cspViolationsOf(page));
  return page;
}

const h1 = async (page: Page) => (await page.locator('h1').textContent())?.trim();

/** Username, Tab, password, Enter: the login form by keyboard (the username field has the focus). */
async function typePassword(page: Page, user: E2eUser): Promise<void> {
  await page.keyboard.type(user.username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(user.password);
  await navigateBy(page, () => page.keyboard.press('Enter'));
}

/**
 * The code by keyboard (the code field has the focus), enrolling first when the page shows a key;
 * after an enrollment's first code, "I have saved them" on the recovery codes, by keyboard too.
 */
async function typeCode(page: Page, user: E2eUser): Promise<void> {
  if (await page.locator('#totp-secret').count()) user.totpSecret = await shownTotpSecret(page);
  await page.keyboard.type(await nextCode(user));
  await navigateBy(page, () => page.keyboard.press('Enter'));
  if (await page.locator('#codes-saved').count()) {
    await page.focus('#codes-saved');
    await navigateBy(page, () => page.keyboard.press('Enter'));
  }
}

async function logoShown(page: Page): Promise<void> {
  const logo = page.locator('#client-logo');
  await logo.evaluate((img: HTMLImageElement) => img.decode());
  expect(await logo.evaluate((img: HTMLImageElement) => ({ alt: img.alt, src: img.currentSrc, loaded: img.naturalWidth > 0 }))).toEqual({ alt: 'App One logo', src: logoUri, loaded: true });
  expect(await logo.boundingBox()).toMatchObject({ width: 40, height: 40 });
  expect((await page.locator('.client-line').textContent())?.trim()).toBe('to continue to App One');
}

describe('the sign-in pages in Chromium', () => {
  it('name the app with its logo on the login and second-factor pages; the password step redirects, so Back after signing in leads on', async () => {
    const user = await createUser(stack, 'branding');
    // Enrolled first, in a browser of its own: this sign-in is the one of a user with an authenticator.
    const enrolling = await newPage();
    await signIn(enrolling, stack.appOneUrl, user);
    await enrolling.context().close();
    const page = await newPage();
    await page.goto(`${stack.appOneUrl}/`);
    expect(await h1(page)).toBe('Sign in');
    await logoShown(page);
    await checkAtBothWidths(page, 'sign-in-login-branded');

    await typePassword(page, user);
    // Post/redirect/get: the second-factor page has an address of its own.
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\/[\w-]+$/);
    await logoShown(page);
    await checkAtBothWidths(page, 'sign-in-mfa-branded');
    await typeCode(page, user);
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);

    // Back: no form is posted again; the finished sign-in's page says the user is signed in and leads on to the app.
    await page.goBack();
    await page.waitForLoadState('load');
    expect(await h1(page)).toBe('You are already signed in');
    expect((await page.locator('#way-on').textContent())?.trim()).toBe('Continue to App One');
    await checkAtBothWidths(page, 'sign-in-back-after-sign-in');
    await page.focus('#way-on');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
  });

  it("two tabs: app-one in one and app-two in another, and the first tab's password still signs in to app-one", async () => {
    const user = await createUser(stack, 'twotabs');
    const first = await newPage();
    const second = await newPage(first.context());
    await first.goto(`${stack.appOneUrl}/`);
    await second.goto(`${stack.appTwoUrl}/`);
    expect(await h1(second)).toBe('Sign in');

    await first.bringToFront();
    await typePassword(first, user);
    expect(await first.locator('[role=alert]').count()).toBe(0);
    await typeCode(first, user);
    await first.waitForURL(`${stack.appOneUrl}/`);
    expect(await first.locator('#user-name').textContent()).toBe(user.name);
    await screenshot(first, 'sign-in-two-tabs-first-done');
  });

  it('a sign-in page whose cookies are gone ends on a page that says so and leads back to the app', async () => {
    const user = await createUser(stack, 'nocookie');
    const page = await newPage();
    await page.goto(`${stack.appOneUrl}/`);
    await page.context().clearCookies();
    await typePassword(page, user);
    expect(await h1(page)).toBe('This sign-in has expired');
    expect((await page.locator('#way-on').textContent())?.trim()).toBe('Back to App One');
    await checkAtBothWidths(page, 'sign-in-expired');
    await page.focus('#way-on');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await h1(page)).toBe('Sign in');
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
  });

  it('the 404 page and an unknown app are human pages with a way on', async () => {
    const page = await newPage();
    const missing = await page.goto(`${stack.authUrl}/`);
    expect(missing?.status()).toBe(404);
    expect(await h1(page)).toBe('Page not found');
    await checkAtBothWidths(page, 'sign-in-not-found');

    const unknown = await page.goto(`${stack.authUrl}/oauth2/v1/authorize?client_id=no-such-app&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(`${stack.appOneUrl}/callback`)}`);
    expect(unknown?.status()).toBe(400);
    expect(await h1(page)).toBe('Unknown application');
    expect(await page.locator('body').textContent()).not.toContain('client is invalid');
    await checkAtBothWidths(page, 'sign-in-unknown-app');
    await page.focus('#way-on');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    // The account page asks to sign in first.
    expect(await h1(page)).toBe('Sign in');
    expect((await page.locator('.client-line').textContent())?.trim()).not.toContain('no-such-app');
  });
});
