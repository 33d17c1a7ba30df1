/**
 * The admin console's shell, dashboard and Users section in Chromium against the whole stack,
 * driven by the keyboard alone on the console's pages (Tab to a control, Enter or typing), every
 * console page checked with axe-core at 390 and 1280 px (screenshots in e2e/artifacts). A
 * non-admin gets the 403 page; an admin signs in through /admin and sees the dashboard; disabling
 * a user ends their session; a locked-out user is unlocked and signs in; resetting a user's
 * second factor makes them enrol again; a user created in the console sets a password through
 * the reset link the console shows. A second stack, with the default AUTH_ADMIN_CONSOLE_MAX_AGE
 * (600 s) and the authorization server's test clock (support/test-clock.ts) moved past it instead
 * of waited for, shows a stale sign-in sent through the login again, and a form posted after it
 * refused with a page offering the sign-in. No CSP workaround: every answer is enforced as sent.
 * Lockouts: AUTH_REGULATION_MAX_RETRIES=3 with AUTH_REGULATION_DELAY_AFTER=3 (a lock after three
 * wrong passwords, no delay before it), so the test can lock a user out in three tries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { cspViolationsOf, launchBrowser, navigateBy, signIn, submitCode, submitPassword } from '../support/browser.ts';
import { authClock, TEST_CLOCK_ENV, type AuthClock } from '../support/test-clock.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];
const cspViolations: string[][] = [];

beforeAll(async () => {
  stack = await startStack({ name: 'admin-console-users', authEnv: { AUTH_REGULATION_MAX_RETRIES: '3', AUTH_REGULATION_DELAY_AFTER: '3' } });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.stop();
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  cspViolations.push(cspViolationsOf(page));
  return page;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent())?.trim();

/** Presses Tab until the element matching `selector` has the focus (at most 80 times). */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Tabs to a link or button and presses Enter, waiting for the page it leads to. */
async function activate(page: Page, selector: string): Promise<void> {
  await tabTo(page, selector);
  await navigateBy(page, () => page.keyboard.press('Enter'));
}

/** Tabs to a field and types into it. */
async function typeInto(page: Page, selector: string, value: string): Promise<void> {
  await tabTo(page, selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(value);
}

/** Opens /admin in `page` and signs `user` in (enrolling TOTP at the first sign-in); ends on /admin. */
async function signInToConsole(page: Page, user: E2eUser, origin = stack.authUrl): Promise<void> {
  await page.goto(`${origin}/admin`);
  expect(await text(page, 'h1')).toBe('Sign in');
  await submitPassword(page, user);
  await submitCode(page, user);
  await page.waitForURL(`${origin}/admin`);
}

/** From the dashboard, by keyboard: Users, search the username, open the user's page. */
async function openUser(page: Page, username: string): Promise<void> {
  await page.goto(`${stack.authUrl}/admin`);
  await activate(page, 'nav a[href="/admin/users"]');
  expect(await text(page, 'h1')).toBe('Users');
  await typeInto(page, '#user-search', username);
  await navigateBy(page, () => page.keyboard.press('Enter'));
  // The search finds this one user (usernames end in random hex).
  expect(await page.locator('#user-table tbody tr').count()).toBe(1);
  await activate(page, '#user-table tbody a');
  expect(await text(page, 'h1')).toBe(username);
}

describe('the admin console: shell, dashboard and users, in Chromium', () => {
  let admin: E2eUser;
  let a: Page;

  it('answers a signed-in user outside the admin groups with the 403 page, whose way on works by keyboard', async () => {
    const user = await createUser(stack, 'console-visitor');
    const page = await newPage();
    // The sign-in ends on /admin, which answers 403.
    await signInToConsole(page, user);
    expect(await text(page, 'h1')).toBe('You do not have access to the admin console');
    expect(await text(page, '#message')).toBe(`You are signed in as ${user.username}, and this account is not an administrator.`);
    await checkAtBothWidths(page, 'admin-console-403');
    await activate(page, 'a[href="/account"]');
    expect(await text(page, 'h1')).toBe('Your account');
  });

  it('signs an admin in through /admin and shows the dashboard', async () => {
    admin = await createUser(stack, 'admins');
    a = await newPage();
    await signInToConsole(a, admin);
    expect(await text(a, 'h1')).toBe('Dashboard');
    expect(await text(a, '#console-user')).toBe(admin.username);
    expect(await text(a, '#console-role')).toBe('administrator');
    expect(Number(await text(a, '#stat-sign-ins'))).toBeGreaterThanOrEqual(2);
    expect(Number(await text(a, '#stat-sessions'))).toBeGreaterThanOrEqual(2);
    expect(await text(a, '#pending-migrations')).toBe('none, the database schema is current');
    expect(await a.locator('#key-table tbody tr').count()).toBeGreaterThanOrEqual(1);
    await checkAtBothWidths(a, 'admin-console-dashboard');
  });

  it('disables a user after a confirmation; their session ends at once', async () => {
    const user = await createUser(stack, 'console-disable');
    const c = await newPage();
    await signIn(c, stack.appOneUrl, user);
    await c.goto(`${stack.authUrl}/account`);
    expect(await text(c, 'h1')).toBe('Your account');

    await openUser(a, user.username);
    expect(await a.locator('#session-list li').count()).toBe(1);
    await checkAtBothWidths(a, 'admin-console-user');
    await activate(a, '#disable-user');
    expect(await text(a, 'h1')).toBe(`Disable ${user.username}?`);
    expect(await text(a, '#confirm li')).toContain('can no longer sign in');
    await checkAtBothWidths(a, 'admin-console-confirm-disable');
    await activate(a, '#confirm-action');
    expect(await text(a, '#flash')).toMatch(new RegExp(`^${user.username} is disabled: 1 session and \\d+ grants? ended\\.$`));
    expect(await text(a, '#user-status')).toMatch(/^disabled since /);
    await checkAtBothWidths(a, 'admin-console-user-disabled');

    // The user's browser is signed out: the account page asks for a sign-in again.
    await c.goto(`${stack.authUrl}/account`);
    expect(await text(c, 'h1')).toBe('Sign in');
  });

  it('unlocks a user locked out by wrong passwords, who then signs in', async () => {
    const user = await createUser(stack, 'console-unlock');
    const c = await newPage();
    await signIn(c, stack.appOneUrl, user);
    const d = await newPage();
    await d.goto(`${stack.appOneUrl}/`);
    for (let i = 0; i < 3; i++) await submitPassword(d, user, 'not the password, sorry');
    await submitPassword(d, user);
    expect(await text(d, '[role="alert"]')).toMatch(/^Too many attempts\. Try again in \d+ minutes?\.$/);

    await a.goto(`${stack.authUrl}/admin`);
    expect(await text(a, '#lockout-list')).toContain(user.username);
    await openUser(a, user.username);
    expect(await text(a, '#user-lockout')).toMatch(/^locked out until /);
    await activate(a, '#unlock-user');
    expect(await text(a, '#flash')).toBe(`${user.username} is unlocked: 3 recorded failures were cleared.`);
    expect(await text(a, '#user-lockout')).toBe('not locked out');

    await submitPassword(d, user);
    await submitCode(d, user);
    await d.waitForURL(`${stack.appOneUrl}/`);
  });

  it("resets a user's second factor: they set up a new authenticator app at the next sign-in", async () => {
    const user = await createUser(stack, 'console-factor');
    const c = await newPage();
    await signIn(c, stack.appOneUrl, user);
    const firstSecret = user.totpSecret;

    await openUser(a, user.username);
    expect(await text(a, '#factor-totp')).toBe('set up');
    await activate(a, '#reset-factors');
    expect(await text(a, 'h1')).toBe(`Reset the second factors of ${user.username}?`);
    await checkAtBothWidths(a, 'admin-console-confirm-reset-factors');
    await activate(a, '#confirm-action');
    expect(await text(a, '#flash')).toMatch(new RegExp(`^The second factors of ${user.username} were reset \\(removed the authenticator app, 10 recovery codes\\); 1 session ended\\.$`));
    expect(await text(a, '#factor-totp')).toBe('not set up');

    const d = await newPage();
    await d.goto(`${stack.appOneUrl}/`);
    await submitPassword(d, user);
    expect(await d.locator('#totp-secret').count()).toBe(1);
    user.lastStep = undefined;
    await submitCode(d, user);
    expect(user.totpSecret).not.toBe(firstSecret);
    await d.waitForURL(`${stack.appOneUrl}/`);
  });

  it('creates a user, who sets a password through the one-time link the console shows', async () => {
    await a.goto(`${stack.authUrl}/admin/users`);
    await checkAtBothWidths(a, 'admin-console-users');
    await activate(a, '#new-user');
    expect(await text(a, 'h1')).toBe('Create a user');
    await checkAtBothWidths(a, 'admin-console-new-user');
    const username = `console-new-${Date.now().toString(36)}`;
    await typeInto(a, '#username', username);
    await typeInto(a, '#name', 'Console Newcomer');
    await typeInto(a, '#email', `${username}@example.com`);
    await typeInto(a, '#groups', 'e2e, editors');
    await activate(a, '#save-user');
    expect(await text(a, 'h1')).toBe('User created');
    const link = await a.locator('#reset-link-url').inputValue();
    expect(link).toMatch(new RegExp(`^${stack.authUrl}/account/password-reset/[A-Za-z0-9_-]{43}$`));
    await checkAtBothWidths(a, 'admin-console-user-created');

    const newcomer: E2eUser = { username, password: `a console-made passphrase ${Date.now()}`, name: 'Console Newcomer', email: `${username}@example.com`, groups: ['e2e', 'editors'] };
    const c = await newPage();
    await c.goto(link);
    await c.fill('#reset-new-password', newcomer.password);
    await c.fill('#reset-new-password-confirm', newcomer.password);
    await navigateBy(c, () => c.click('#reset-password'));
    expect(await text(c, 'h1')).toBe('Password changed');
    await signIn(c, stack.appOneUrl, newcomer);
    expect(await text(c, '#user-name')).toBe('Console Newcomer');
  });

  it('keeps the pages free of CSP violations', () => {
    expect(cspViolations.flat()).toEqual([]);
  });
});

describe('the admin console once the sign-in is older than AUTH_ADMIN_CONSOLE_MAX_AGE, in Chromium', () => {
  /** AUTH_ADMIN_CONSOLE_MAX_AGE's default, seconds. */
  const MAX_AGE_S = 600;
  let aging: Stack;
  let clock: AuthClock;
  beforeAll(async () => {
    aging = await startStack({ name: 'admin-console-stale', clientApps: false, authEnv: TEST_CLOCK_ENV });
    clock = authClock(aging);
  });
  afterAll(async () => {
    await aging?.stop();
  });

  it('sends a stale sign-in through the login again, and refuses a form posted after it with a page offering the sign-in', async () => {
    const admin = await createUser(aging, 'admins');
    // The admin's authenticator app keeps the server's time.
    admin.clock = clock;
    const page = await newPage();
    await signInToConsole(page, admin, aging.authUrl);
    await page.goto(`${aging.authUrl}/admin/users`);
    expect(await text(page, 'h1')).toBe('Users');
    const user = await createUser(aging, 'stale-target');
    await page.goto(`${aging.authUrl}/admin/users?q=${user.username}`);
    await activate(page, '#user-table tbody a');
    expect(await text(page, 'h1')).toBe(user.username);
    // The sign-in grows older than the setting, as for an admin who left the page open.
    await clock.advance(MAX_AGE_S + 1);
    await activate(page, '#unlock-user');
    expect(await text(page, 'h1')).toBe('Sign in again to continue');
    expect(await text(page, '#message')).toBe('Your sign-in is too old for the admin console, so nothing was changed. Sign in again, then repeat what you were doing.');
    await checkAtBothWidths(page, 'admin-console-stale-post');

    // A page visit is sent through the login again, and comes back to the page asked for.
    await page.goto(`${aging.authUrl}/admin/users`);
    expect(await text(page, 'h1')).toBe('Sign in');
    await submitPassword(page, admin);
    await submitCode(page, admin);
    await page.waitForURL(`${aging.authUrl}/admin/users`);
    expect(await text(page, 'h1')).toBe('Users');
  });
});
