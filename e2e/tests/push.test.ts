/**
 * Push approval with number matching in a real browser against the whole stack.
 * Context "owner" signs in with password + TOTP and enrolls a web authenticator from the devices
 * page; context "phone" is that authenticator (its P-256 key lives in the phone context's
 * IndexedDB); context "laptop" signs in at app-one, chooses push, and lands on app-one's landing
 * page once the phone approves with the number shown on the laptop. Then a denial, and an
 * authenticator without EventSource (polling fallback).
 * The phone names the sign-in's browser ("Chrome on Linux"), never its user agent; both sides count
 * down the time left (the laptop's clock is Playwright's, moved forward instead of waited for);
 * a wrong number and a denial each say what happened on both sides; "This wasn't me" leads to a
 * password change; "Add a device" moves on by itself once a device enrolls with the short code,
 * typed in lower case. A push-only account's password-reset link sends a push first; the phone
 * approves it with the number the link's page shows, and the page goes on by itself to the new
 * password, which then signs in. Each page is checked with axe-core at 390 and 1280 px and driven
 * by the keyboard where the user acts.
 * No CSP workaround: every answer of the authorization server is enforced as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, showMethod, signIn, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { tabTo } from '../support/keyboard.ts';
import { createUser, removeTotpAndRecoveryCodes, resetLink, type E2eUser } from '../support/users.ts';

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

/** Activates a control with the keyboard: focus, then Enter. */
async function pressEnterOn(page: Page, selector: string): Promise<void> {
  // Focus and key press as one action on the element the selector names when it is pressed.
  await page.locator(selector).press('Enter');
}

/** From an app's URL to the WAITING page of a push; returns the number shown. */
async function signInWithPush(laptop: Page, appUrl: string): Promise<string> {
  await laptop.goto(`${appUrl}/`);
  await submitPassword(laptop, user);
  await showMethod(laptop, '#send-push');
  await navigateBy(laptop, () => laptop.click('#send-push'));
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
    // The old devices page's address still works: it moved to the account page's Security section.
    await owner.goto(`${stack.authUrl}/authenticator/devices`);
    expect(owner.url()).toBe(`${stack.authUrl}/account/security`);
    expect((await owner.locator('#devices h2').first().textContent())?.trim()).toBe('Authenticator devices');
    await navigateBy(owner, () => owner.click('#add-device'));
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
    // The owner's "Add a device" page advances by itself once the code is used; wait for that
    // navigation to end before leaving, or the two navigations race.
    await owner.waitForURL(`${stack.authUrl}/authenticator/devices/enroll/done`, { timeout: 20_000 });
    expect(await owner.locator('#enroll-done').textContent()).toBe('E2E phone is set up: it can now approve your sign-ins.');
    await owner.goto(`${stack.authUrl}/account/security`);
    expect(await owner.locator('#device-list').textContent()).toContain('E2E phone');

    // The laptop signs in at app-one and chooses push; its clock is the test's.
    const laptop = await newPage();
    await laptop.clock.install();
    const number = await signInWithPush(laptop, stack.appOneUrl);
    // The time left counts down (from the seconds the server counted), not an absolute time.
    expect(await laptop.locator('#push-expiry').textContent()).toMatch(/^The request expires in (1:00|0:5\d)\.$/);
    await laptop.clock.fastForward(20_000);
    expect(await laptop.locator('#push-expiry').textContent()).toMatch(/^The request expires in 0:[34]\d\.$/);
    await screenshot(laptop, 'push-2-waiting');

    // The phone shows the request (client, browser, choices) and approves with that number.
    const card = phone.locator('.request');
    await card.waitFor();
    expect(await card.locator('h2').textContent()).toContain('app-one');
    expect(await card.locator('.choices button').count()).toBe(3);
    // The sign-in's browser as a label, never the raw User-Agent.
    expect(await card.locator('[data-fact="browser"]').textContent()).toBe('Chrome on Linux');
    expect(await card.textContent()).not.toContain('Mozilla/');
    expect(await card.locator('.countdown').textContent()).toMatch(/^Expires in (1:00|0:[0-5]\d)$/);
    await screenshot(phone, 'push-3-request');
    await checkAtBothWidths(phone, 'push-phone-request');
    await pressEnterOn(phone, `.request button[data-number="${number}"]`);
    await phone.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('Approved'));

    // The laptop's page notices and lands on app-one's landing page, signed in.
    await laptop.waitForURL(`${stack.appOneUrl}/`, { timeout: 20_000 });
    expect((await laptop.locator('#user-name').textContent())?.trim()).toBe(user.name);
    await screenshot(laptop, 'push-4-landed');
  });

  it('a denial on the authenticator shows REJECTED on the sign-in page, with the other factors offered; "This wasn\'t me" offers the password change', async () => {
    const laptop = await newPage();
    await signInWithPush(laptop, stack.appTwoUrl);
    await checkAtBothWidths(laptop, 'push-laptop-waiting');
    const card = phone.locator('.request');
    await card.waitFor();
    expect(await card.locator('h2').textContent()).toContain('app-two');
    await pressEnterOn(phone, '.request button[data-deny]');
    await phone.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('Denied'));
    await laptop.waitForSelector('text=The sign-in was denied on your authenticator.', { timeout: 20_000 });
    expect(await laptop.locator('#code').count()).toBe(1);
    expect(await laptop.locator('#send-push').count()).toBe(1);
    await screenshot(laptop, 'push-5-denied');

    // The phone offers "This wasn't me": it is recorded, then the password change is offered.
    expect(await phone.locator('#not-me').isVisible()).toBe(true);
    expect(await phone.locator('#change-password').isVisible()).toBe(false);
    await pressEnterOn(phone, '#not-me-button');
    await phone.locator('#change-password').waitFor({ state: 'visible' });
    expect(await phone.locator('#change-password').getAttribute('href')).toBe(`${stack.authUrl}/account/security#password`);
    expect(await phone.locator('#reset-password').getAttribute('href')).toBe(`${stack.authUrl}/account/forgot-password`);
    expect(await phone.evaluate(() => document.activeElement?.id)).toBe('change-password');
    expect(await phone.locator('#not-me-done').textContent()).toContain('Change your password now');
    await checkAtBothWidths(phone, 'push-phone-not-me');
    // The link leads to the account page's password change (which signs a browser in first).
    await navigateBy(phone, () => phone.keyboard.press('Enter'));
    expect(phone.url()).not.toBe(`${stack.authUrl}/authenticator`);
    await phone.goto(`${stack.authUrl}/authenticator`);
    await phone.waitForSelector('#main:not([hidden])');
  });

  it('a wrong number shows its own message on the phone and on the sign-in page, not the denial\'s', async () => {
    const laptop = await newPage();
    const number = await signInWithPush(laptop, stack.appOneUrl);
    const card = phone.locator('.request');
    await card.waitFor();
    const wrong = (await card.locator('.choices button').allTextContents()).map((t) => t.trim()).find((n) => n !== number)!;
    await pressEnterOn(phone, `.request button[data-number="${wrong}"]`);
    await phone.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('Wrong number'));
    expect(await phone.locator('#result').textContent()).toBe(
      `Wrong number: You picked ${wrong}, but the sign-in page showed another number, so the sign-in was refused. If you are signing in, send a new push and pick the number shown there.`,
    );
    expect(await phone.locator('#not-me-button').isVisible()).toBe(true);
    await checkAtBothWidths(phone, 'push-phone-wrong-number');
    await laptop.waitForSelector(`text=The number picked on your authenticator was not ${number}, the one shown here`, { timeout: 20_000 });
    expect(await laptop.locator('body').textContent()).not.toContain('The sign-in was denied on your authenticator.');
    expect(await laptop.locator('code', { hasText: 'push_number_mismatch' }).count()).toBe(1);
    await checkAtBothWidths(laptop, 'push-laptop-wrong-number');
  });

  it('"Add a device" moves on by itself when a device enrolls with the short code typed in lower case', async () => {
    await owner.goto(`${stack.authUrl}/account/security#devices`);
    await navigateBy(owner, () => owner.click('#add-device'));
    const code = (await owner.locator('#enrollment-code').textContent())!.trim();
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(await owner.locator('#enrollment-expiry').textContent()).toMatch(/^The code works once and expires in (10:00|9:[0-5]\d)\.$/);
    await checkAtBothWidths(owner, 'push-add-device');

    const watch = await newPage();
    await watch.goto(`${stack.authUrl}/authenticator`);
    await watch.waitForSelector('#enroll:not([hidden])');
    await checkAtBothWidths(watch, 'push-phone-enroll');
    // Typed as a person would: lower case, one dash kept, one dropped.
    const typed = `${code.slice(0, 9).toLowerCase()}${code.slice(10).toLowerCase()}`;
    await watch.locator('#enroll-code').focus();
    await watch.keyboard.type(typed);
    await watch.keyboard.press('Tab');
    await watch.keyboard.press('ControlOrMeta+A');
    await watch.keyboard.type('E2E watch');
    await watch.keyboard.press('Enter');
    await watch.waitForSelector('#main:not([hidden])');
    expect(await watch.locator('#device-info').textContent()).toContain('E2E watch');

    // The owner's page noticed by itself.
    await owner.waitForURL(`${stack.authUrl}/authenticator/devices/enroll/done`, { timeout: 20_000 });
    expect(await owner.locator('#enroll-done').textContent()).toBe('E2E watch is set up: it can now approve your sign-ins.');
    await checkAtBothWidths(owner, 'push-add-device-done');
    await navigateBy(owner, () => pressEnterOn(owner, '#back-to-account'));
    expect(await owner.locator('#device-list').textContent()).toContain('E2E watch');
  });

  it('an authenticator without EventSource falls back to polling and still approves', async () => {
    await owner.goto(`${stack.authUrl}/authenticator/devices`);
    await navigateBy(owner, () => owner.click('#add-device'));
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

describe("a push-only account's password-reset link, in Chromium", () => {
  it('sends a push first; the phone approves with the number shown, and the new password is set and signs in', async () => {
    const resetter = await createUser(stack, 'push-reset');
    const owner = await newPage();
    await signIn(owner, stack.appOneUrl, resetter);
    await owner.goto(`${stack.authUrl}/account/security`);
    await navigateBy(owner, () => owner.click('#add-device'));
    const enrollment = await owner.locator('#enrollment-link').getAttribute('href');
    const resetPhone = await newPage();
    await resetPhone.goto(enrollment!);
    await resetPhone.waitForSelector('#enroll:not([hidden])');
    await resetPhone.fill('#device-name', 'Reset phone');
    await resetPhone.click('#enroll-submit');
    await resetPhone.waitForSelector('#main:not([hidden])');
    // An operator removed the authenticator app and the codes are gone: the phone is the only factor.
    await removeTotpAndRecoveryCodes(stack, resetter.username);
    const url = resetLink(stack, resetter.username);

    const laptop = await newPage();
    const csp = cspViolationsOf(laptop);
    await laptop.goto(url);
    expect(await laptop.locator('h1').textContent()).toBe('Choose a new password');
    expect(await laptop.locator('#reset-code').count()).toBe(0);
    expect(await laptop.locator('#reset-push-approved').count()).toBe(0);
    expect((await laptop.locator('#reset-send-push').textContent())?.trim()).toBe('Send a push to my authenticator');
    await checkAtBothWidths(laptop, 'push-reset-link');

    await tabTo(laptop, '#reset-send-push');
    await navigateBy(laptop, () => laptop.keyboard.press('Enter'));
    expect(new URL(laptop.url()).searchParams.get('push')).toMatch(/^[\w-]+$/);
    const number = (await laptop.locator('#push-number').textContent())?.trim();
    expect(number).toMatch(/^\d{2}$/);
    await checkAtBothWidths(laptop, 'push-reset-waiting');

    // The phone shows the reset, never a sign-in to an app, and approves with that number.
    const card = resetPhone.locator('.request');
    await card.waitFor();
    expect((await card.locator('h2').textContent())?.trim()).toContain('Password reset');
    await pressEnterOn(resetPhone, `.request button[data-number="${number}"]`);
    await resetPhone.waitForFunction(() => document.getElementById('result')?.textContent?.startsWith('Approved'));

    // The link's page notices by itself and asks for the new password.
    await laptop.waitForSelector('#reset-push-approved', { timeout: 20_000 });
    expect(await laptop.locator('#reset-push-approved').textContent()).toBe('Approved on your authenticator. Choose your new password.');
    await checkAtBothWidths(laptop, 'push-reset-approved');
    const fresh = `push-approved ${resetter.password} passphrase`;
    await tabTo(laptop, '#reset-new-password');
    await laptop.keyboard.type(fresh);
    await laptop.keyboard.press('Tab');
    await laptop.keyboard.type(fresh);
    await navigateBy(laptop, () => laptop.keyboard.press('Enter'));
    expect(await laptop.locator('h1').textContent()).toBe('Password changed');
    await checkAtBothWidths(laptop, 'push-reset-done');

    // The new password alone adds no factor: the sign-in asks for the push, the account's only
    // factor, and offers no authenticator-app set-up or code.
    const again = await newPage();
    await again.goto(`${stack.appOneUrl}/`);
    await submitPassword(again, { ...resetter, password: fresh });
    expect((await again.locator('h1').textContent())?.trim()).toBe("Confirm it's you");
    expect(await again.locator('#send-push').count()).toBe(1);
    expect(await again.locator('#totp-factor').count()).toBe(0);
    expect(csp).toEqual([]);
    // Two sign-ins, an enrollment and four pages checked at two widths: more than one file's default on a busy machine.
  }, 180_000);
});
