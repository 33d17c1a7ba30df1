/**
 * Push approval with number matching in a real browser against the whole stack.
 * Context "owner" signs in with password + TOTP and enrolls a web authenticator from the devices
 * page; context "phone" is that authenticator (its P-256 key lives in the phone context's
 * IndexedDB); context "laptop" signs in at app-one, chooses push, and lands on app-one's landing
 * page once the phone approves with the number shown on the laptop. Then a denial, and an
 * authenticator without EventSource (polling fallback).
 * No CSP workaround: every answer of the authorization server is enforced as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { launchBrowser, screenshot, signIn, submitPassword } from '../support/browser.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];
let user: E2eUser;
let phone: Page;
let owner: Page;

beforeAll(async () => {
  stack = await startStack({ name: 'push' });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
});

async function newPage(options: { withoutEventSource?: boolean } = {}) {
  const context = await browser.newContext();
  contexts.push(context);
  if (options.withoutEventSource) await context.addInitScript(() => Reflect.deleteProperty(window, 'EventSource'));
  return context.newPage();
}

/** From an app's URL to the WAITING page of a push; returns the number shown. */
async function signInWithPush(laptop: Page, appUrl: string): Promise<string> {
  await laptop.goto(`${appUrl}/`);
  await submitPassword(laptop, user);
  await Promise.all([laptop.waitForLoadState('load'), laptop.click('#send-push')]);
  const number = (await laptop.locator('#push-number').textContent())?.trim();
  expect(number).toMatch(/^\d{2}$/);
  return number!;
}

describe('issue 5, push approval in Chromium', () => {
  it('a second context enrolled as the authenticator approves the sign-in of the first with the right number', async () => {
    user = await createUser(stack, 'push');

    // The owner signs in with password + TOTP, then creates a one-time enrollment code.
    owner = await newPage();
    await signIn(owner, stack.appOneUrl, user);
    // The old devices page's address still works: it moved to the account page's devices section.
    await owner.goto(`${stack.authUrl}/authenticator/devices`);
    expect(owner.url()).toBe(`${stack.authUrl}/account#devices`);
    expect((await owner.locator('#devices h2').first().textContent())?.trim()).toBe('Authenticator devices');
    await Promise.all([owner.waitForLoadState('load'), owner.click('#add-device')]);
    const link = await owner.locator('#enrollment-link').getAttribute('href');
    expect(link).toMatch(new RegExp(`^${stack.authUrl}/authenticator#enroll=[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`));
    // The account got its recovery codes with the TOTP enrollment of its first sign-in.
    expect(await owner.locator('#recovery-codes li').count()).toBe(0);
    await screenshot(owner, 'push-1-enrollment-code');

    // The phone opens the link: the code is filled in from the fragment; it names itself and enrolls.
    phone = await newPage();
    await phone.goto(link!);
    await phone.waitForSelector('#enroll:not([hidden])');
    expect(await phone.inputValue('#enroll-code')).toBe(link!.split('#enroll=')[1]);
    await phone.fill('#device-name', 'E2E phone');
    await phone.click('#enroll-submit');
    await phone.waitForSelector('#main:not([hidden])');
    expect(await phone.locator('#device-info').textContent()).toContain(`E2E phone · account ${user.username}`);
    // Installable: the service worker controls /authenticator.
    await phone.waitForFunction(async () => (await navigator.serviceWorker.getRegistration('/authenticator'))?.active?.state === 'activated');
    await owner.goto(`${stack.authUrl}/account`);
    expect(await owner.locator('#device-list').textContent()).toContain('E2E phone');

    // The laptop signs in at app-one and chooses push.
    const laptop = await newPage();
    const number = await signInWithPush(laptop, stack.appOneUrl);
    await screenshot(laptop, 'push-2-waiting');

    // The phone shows the request (client, browser, choices) and approves with that number.
    const card = phone.locator('.request');
    await card.waitFor();
    expect(await card.locator('h2').textContent()).toContain('app-one');
    expect(await card.locator('.choices button').count()).toBe(3);
    await screenshot(phone, 'push-3-request');
    await card.locator(`button[data-number="${number}"]`).click();
    await phone.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('Approved'));

    // The laptop's page notices and lands on app-one's landing page, signed in.
    await laptop.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 });
    expect((await laptop.locator('#user-name').textContent())?.trim()).toBe(user.name);
    await screenshot(laptop, 'push-4-landed');
  });

  it('a denial on the authenticator shows REJECTED on the sign-in page, with the other factors offered', async () => {
    const laptop = await newPage();
    await signInWithPush(laptop, stack.appTwoUrl);
    const card = phone.locator('.request');
    await card.waitFor();
    expect(await card.locator('h2').textContent()).toContain('app-two');
    await card.locator('button[data-deny]').click();
    await phone.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('Denied'));
    await laptop.waitForSelector('text=The sign-in was denied on your authenticator.', { timeout: 20_000 });
    expect(await laptop.locator('#code').count()).toBe(1);
    expect(await laptop.locator('#send-push').count()).toBe(1);
    await screenshot(laptop, 'push-5-denied');
  });

  it('an authenticator without EventSource falls back to polling and still approves', async () => {
    await owner.goto(`${stack.authUrl}/authenticator/devices`);
    await Promise.all([owner.waitForLoadState('load'), owner.click('#add-device')]);
    expect(await owner.locator('#recovery-codes').count()).toBe(0);
    const link = await owner.locator('#enrollment-link').getAttribute('href');
    const tablet = await newPage({ withoutEventSource: true });
    await tablet.goto(link!);
    await tablet.waitForSelector('#enroll:not([hidden])');
    await tablet.fill('#device-name', 'E2E tablet');
    await tablet.click('#enroll-submit');
    await tablet.waitForSelector('#main:not([hidden])');
    await tablet.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Checking for requests'));

    const laptop = await newPage();
    const number = await signInWithPush(laptop, stack.appOneUrl);
    const card = tablet.locator('.request');
    await card.waitFor({ timeout: 10_000 });
    await card.locator(`button[data-number="${number}"]`).click();
    await laptop.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 });
    expect((await laptop.locator('#user-name').textContent())?.trim()).toBe(user.name);
  });
});
