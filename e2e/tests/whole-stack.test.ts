/**
 * Scenarios 1–5 of e2e/README.md, "Scenarios", in a real browser against the whole stack. The authorization server
 * issues 3-second access tokens, the API allows no clock leeway, the apps refresh with no skew
 * and re-check the SSO session every 6 seconds: expiry and SSO checks happen within seconds.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { CODE_SUBMIT, launchBrowser, navigateBy, screenshot, signIn, submitPassword } from '../support/browser.ts';
import { createUser, demoUser, nextCode } from '../support/users.ts';

const ACCESS_TOKEN_TTL = 3;
const SSO_CHECK_INTERVAL = 6;

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  stack = await startStack({
    name: 'whole-stack',
    authEnv: { AUTH_ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL) },
    apiEnv: { API_CLOCK_TOLERANCE: '0' },
    clientEnv: { CLIENT_REFRESH_SKEW: '0', CLIENT_SSO_CHECK_INTERVAL: String(SSO_CHECK_INTERVAL) },
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = async (selector: string) => (await page.locator(selector).textContent())?.trim();

describe('issue 4, whole stack in Chromium', () => {
  it('1. app-one → login page → password → TOTP enrollment → landing page showing the user', async () => {
    const demo = demoUser();
    await page.goto(`${stack.appOneUrl}/`);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    expect(await text('h1')).toBe('Sign in');
    expect(await page.locator('main').textContent()).toContain('app-one');

    await submitPassword(page, demo);
    expect(await text('h1')).toBe('Set up two-step verification');
    expect(await page.locator('figure.qr svg').count()).toBe(1);
    expect(await text('#totp-secret')).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    // Recovery codes come after the first code proves the app works.
    expect(await page.locator('#recovery-codes li').count()).toBe(0);
    await screenshot(page, '1-totp-enrollment-page');

    demo.totpSecret = (await page.locator('#totp-secret').getAttribute('data-value'))!;
    await page.fill('#code', await nextCode(demo));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await text('h1')).toBe('Save your recovery codes');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`), page.click('#codes-saved')]);
    expect(await text('#app-name')).toBe('app-one');
    expect(await text('#user-name')).toBe(demo.name);
    expect(await text('#user-email')).toBe(demo.email);
    expect(await text('#user-groups')).toBe(demo.groups.join(', '));
    expect(await page.locator('#items').count()).toBe(1);
    expect(await page.locator('#items-error').count()).toBe(0);
    const cookies = await context.cookies(stack.appOneUrl);
    const session = cookies.find((c) => c.name === 'app-one.sid');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await screenshot(page, '1-login-with-totp-enrollment');
  });

  it('2. app-two → landing page with no login (SSO)', async () => {
    const user = await createUser(stack, 'sso');
    await signIn(page, stack.appOneUrl, user);

    const loginPages: string[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).origin === stack.authUrl && response.status() === 200) loginPages.push(response.url());
    });
    await page.goto(`${stack.appTwoUrl}/`);
    await page.waitForURL(`${stack.appTwoUrl}/`);
    expect(loginPages).toEqual([]);
    expect(await text('#app-name')).toBe('app-two');
    expect(await text('#user-name')).toBe(user.name);
    expect(await text('#user-email')).toBe(user.email);
    await screenshot(page, '2-sso-app-two');
  });

  it('3. the landing page lists, adds and deletes an item through the API', async () => {
    const user = await createUser(stack, 'items');
    await signIn(page, stack.appOneUrl, user);
    const title = `Metropolis ${Date.now()}`;
    const id = await page.inputValue('#add-item input[name=id]');

    await page.fill('#add-item input[name=value]', title);
    // The form posts back to the page it is on: wait for that navigation, not for a URL the page already has.
    await navigateBy(page, () => page.click('#add-item button[type=submit]'));
    expect(await text('#flash')).toBe(`Added movies ${id}.`);
    const row = page.locator(`#items tr[data-id="${id}"]`);
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain(title);

    // app-two reads the same collection from the API.
    await page.goto(`${stack.appTwoUrl}/`);
    await page.waitForURL(`${stack.appTwoUrl}/`);
    expect(await page.locator(`#items tr[data-id="${id}"]`).textContent()).toContain(title);

    await page.goto(`${stack.appOneUrl}/`);
    await navigateBy(page, () => page.locator(`#items tr[data-id="${id}"] button`).click());
    expect(await text('#flash')).toBe(`Deleted movies ${id}.`);
    expect(await page.locator(`#items tr[data-id="${id}"]`).count()).toBe(0);

    // Adding the same id twice shows the API's 409 as a message.
    await page.fill('#add-item input[name=id]', '424242');
    await page.fill('#add-item input[name=value]', 'Twice');
    await navigateBy(page, () => page.click('#add-item button[type=submit]'));
    await page.fill('#add-item input[name=id]', '424242');
    await page.fill('#add-item input[name=value]', 'Twice');
    await navigateBy(page, () => page.click('#add-item button[type=submit]'));
    expect(await text('#flash')).toBe('The API answered 409 Conflict: movies already has an item with id 424242 (duplicate_id).');
    await screenshot(page, '3-items-through-the-api');
  });

  it('4. an expired access token is refreshed without the user noticing', async () => {
    const user = await createUser(stack, 'refresh');
    await signIn(page, stack.appOneUrl, user);
    const firstExpiry = Date.parse((await page.locator('#token-expires time').getAttribute('datetime'))!);
    await sleep(Math.max(0, firstExpiry - Date.now()) + 600);

    const visited: string[] = [];
    page.on('request', (request) => visited.push(new URL(request.url()).origin));
    await page.reload();
    expect(page.url()).toBe(`${stack.appOneUrl}/`);
    expect(visited.filter((origin) => origin === stack.authUrl)).toEqual([]);
    const secondExpiry = Date.parse((await page.locator('#token-expires time').getAttribute('datetime'))!);
    expect(secondExpiry).toBeGreaterThan(firstExpiry);
    expect(await text('#user-name')).toBe(user.name);
    expect(await page.locator('#items').count()).toBe(1);
    expect(await page.locator('#items-error').count()).toBe(0);

    // The refreshed token works for a write too.
    await page.fill('#add-item input[name=value]', 'After refresh');
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`), page.click('#add-item button[type=submit]')]);
    expect(await text('#flash')).toMatch(/^Added movies \d+\.$/);
    await screenshot(page, '4-refreshed-access-token');
  });

  it('5. logout, after which app-one and app-two both require a login again', async () => {
    const user = await createUser(stack, 'logout');
    await signIn(page, stack.appOneUrl, user);
    await page.goto(`${stack.appTwoUrl}/`);
    await page.waitForURL(`${stack.appTwoUrl}/`);

    await page.goto(`${stack.appOneUrl}/`);
    // app-two was signed out with it, so the sign-out lands on Gatehouse's page that says so, which leads back to app-one.
    await Promise.all([page.waitForURL(`${stack.authUrl}/oauth2/v1/logout/success`), page.click('#logout')]);
    expect(await text('h1')).toBe('Signed out');
    expect(await page.locator('#signed-out-apps li').allTextContents()).toEqual(['app-one', 'app-two']);
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/signed-out`), page.click('#back-to-app')]);
    expect(await text('h1')).toBe('Signed out');
    expect((await context.cookies(stack.appOneUrl)).some((c) => c.name === 'app-one.sid')).toBe(false);

    await page.goto(`${stack.appOneUrl}/`);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    expect(await text('h1')).toBe('Sign in');

    // app-two was told by back-channel logout during the sign-out: its very next page asks for a
    // sign-in, and clears the cookie of the ended session (docs/spec.md §10.19).
    await page.goto(`${stack.appTwoUrl}/`);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    expect(await text('h1')).toBe('Sign in');
    expect(await page.locator('main').textContent()).toContain('app-two');
    expect((await context.cookies(stack.appTwoUrl)).some((c) => c.name === 'app-two.sid')).toBe(false);
    await screenshot(page, '5-logout-ends-both');
  });
});
