/**
 * Sign-in with an upstream identity provider in a real browser, against the whole stack. The
 * upstream is a second Gatehouse (its own process, database and users, on 127.0.0.1 so the
 * browser keeps its cookies apart from the stack's on localhost); the operator adds it with one
 * `authctl idp add`. From app-one: the login page shows "Continue with Upstream Gatehouse"
 * (axe, 390 and 1280 px, reached by keyboard), the upstream's own login page and second factor,
 * back through the callback, where the new account is provisioned and the upstream's TOTP (amr
 * `otp`) is trusted, to app-one's landing page signed in as that account; then app-two signs in
 * by SSO without any login page. On the account page's Security section, by keyboard: that
 * account, with no password, keeps its only way to sign in (the page says why); an account with a
 * password, linked by the operator (`authctl user link`) to another upstream user, removes the
 * provider through its confirmation page, after which that upstream user signing in gets an
 * account of its own instead of this one. No CSP workaround: every answer is enforced as sent.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, COMPILE_CACHE_ENV, REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { freePort, stopChild, waitUntilReady } from '../support/processes.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, signIn, submitCode } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { activate } from '../support/keyboard.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let upstream: { url: string; env: Record<string, string>; dataDir: string; child: ChildProcess };
let browser: Browser;
let page: Page;
let upstreamUser: E2eUser;
let cspViolations: string[] = [];
/** The CSP violations of the pages opened after the first. */
const moreCspViolations: string[][] = [];

const authctl = (env: Record<string, string>, cwd: string, args: string[], input?: string): string =>
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), ...args], { cwd, env, ...(input === undefined ? {} : { input }) }).toString();

/** A second Gatehouse authorization server: the upstream identity provider. */
async function startUpstream(): Promise<typeof upstream> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-upstream-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    NODE_ENV: 'development',
    LOG_LEVEL: 'debug',
    ...COMPILE_CACHE_ENV,
    AUTH_PORT: String(port),
    AUTH_METRICS_PORT: '0',
    AUTH_ISSUER: url,
    AUTH_DATABASE_URL: `sqlite:${join(dataDir, 'auth.db')}`,
    AUTH_DATA_DIR: join(dataDir, 'auth'),
  };
  mkdirSync(join(ARTIFACTS, 'logs', 'federation'), { recursive: true });
  const log = createWriteStream(join(ARTIFACTS, 'logs', 'federation', 'upstream-auth.log'));
  const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/auth/src/main.ts')], { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  await waitUntilReady('upstream-auth', `${url}/healthz`, child);
  return { url, env, dataDir, child };
}

beforeAll(async () => {
  // The two are independent until the operator adds the upstream: they start side by side (and
  // what did start is stopped by afterAll when the other fails).
  const [downstream, upstreamStarted] = await Promise.allSettled([startStack({ name: 'federation' }), startUpstream()]);
  if (downstream.status === 'fulfilled') stack = downstream.value;
  if (upstreamStarted.status === 'fulfilled') upstream = upstreamStarted.value;
  if (downstream.status === 'rejected') throw downstream.reason;
  if (upstreamStarted.status === 'rejected') throw upstreamStarted.reason;
  const callback = `${stack.authUrl}/login/federated/upstream/callback`;
  const added = authctl(upstream.env, upstream.dataDir, ['client', 'add', 'gatehouse-downstream', '--first-party', '--redirect-uri', callback, '--name', 'Gatehouse downstream']);
  const secret = /client_secret: (\S+)/.exec(added)?.[1];
  if (!secret) throw new Error(`no client secret in: ${added}`);
  // The operator's one command: the upstream Gatehouse's TOTP (amr otp) counts as the second factor.
  const idp = authctl(
    stack.authEnv,
    stack.dataDir,
    ['idp', 'add', 'upstream', '--issuer', upstream.url, '--client-id', 'gatehouse-downstream', '--client-secret-stdin', '--name', 'Upstream Gatehouse', '--mfa', 'trust_upstream', '--accept-amr', 'otp', '--userinfo'],
    secret,
  );
  expect(idp).toContain(callback);
  expect(idp).not.toContain(secret);
  upstreamUser = await createUser({ dataDir: upstream.dataDir, authEnv: upstream.env }, 'federated');
  browser = await launchBrowser();
  page = await browser.newPage();
  cspViolations = cspViolationsOf(page);
});

afterAll(async () => {
  await browser?.close();
  if (upstream) {
    await stopChild(upstream.child, () => upstream.child.kill('SIGTERM'));
    rmSync(upstream.dataDir, { recursive: true, force: true });
  }
  await stack?.stop();
});

describe('federated sign-in in Chromium', () => {
  it('app-one → “Continue with Upstream Gatehouse” → the upstream’s login → back to app-one signed in', async () => {
    await page.goto(`${stack.appOneUrl}/`);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    expect(await page.textContent('h1')).toBe('Sign in');
    const button = page.getByRole('button', { name: 'Continue with Upstream Gatehouse' });
    expect(await button.count()).toBe(1);
    await checkAtBothWidths(page, 'federation-login-page');

    // Keyboard only: Tab from the username field until the provider's button has the focus.
    await page.focus('#username');
    for (let presses = 0; presses < 12 && !(await button.evaluate((element) => element === document.activeElement)); presses += 1) await page.keyboard.press('Tab');
    expect(await button.evaluate((element) => element === document.activeElement)).toBe(true);
    await navigateBy(page, () => page.keyboard.press('Enter'));

    // The upstream's own login page (the second Gatehouse), then its second factor.
    expect(new URL(page.url()).origin).toBe(upstream.url);
    expect(await page.textContent('h1')).toBe('Sign in');
    await checkAtBothWidths(page, 'federation-upstream-login');
    await page.fill('#username', upstreamUser.username);
    await page.fill('#password', upstreamUser.password);
    await navigateBy(page, () => page.keyboard.press('Enter'));
    await submitCode(page, upstreamUser);

    // Back through the callback: provisioned, the upstream's MFA trusted, at app-one's landing page.
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.textContent('#user-name')).toBe(upstreamUser.name);
    expect(await page.textContent('#user-email')).toBe(upstreamUser.email);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await screenshot(page, `federation-app-one-landing-${width}`);
    }
  });

  it('app-two signs in by SSO, without a login page', async () => {
    await page.goto(`${stack.appTwoUrl}/`);
    await page.waitForURL(`${stack.appTwoUrl}/`);
    expect(await page.textContent('#user-name')).toBe(upstreamUser.name);
    expect(cspViolations).toEqual([]);
  });
});

/** From an app's URL, a new browser context: "Continue with Upstream Gatehouse", the upstream's login, back at the app. */
async function signInThroughUpstream(user: E2eUser): Promise<Page> {
  const context = await browser.newContext();
  const other = await context.newPage();
  moreCspViolations.push(cspViolationsOf(other));
  await other.goto(`${stack.appOneUrl}/`);
  await navigateBy(other, () => other.getByRole('button', { name: 'Continue with Upstream Gatehouse' }).click());
  expect(new URL(other.url()).origin).toBe(upstream.url);
  await other.fill('#username', user.username);
  await other.fill('#password', user.password);
  await navigateBy(other, () => other.keyboard.press('Enter'));
  await submitCode(other, user);
  await other.waitForURL(`${stack.appOneUrl}/`);
  return other;
}

describe('removing a sign-in provider on the account page, in Chromium', () => {
  const linkedProviders = async (on: Page) => (await on.locator('#link-list').textContent())?.trim();

  it('an account whose only way to sign in is the provider keeps it, and the Security page says why', async () => {
    // The federated account of the first scenario: provisioned from the upstream, no password.
    await page.goto(`${stack.authUrl}/account/security`);
    expect(await linkedProviders(page)).toContain('Upstream Gatehouse');
    await activate(page, '#link-list button[aria-label="Remove Upstream Gatehouse"]');
    expect(await page.textContent('h1')).toBe('Remove this sign-in provider?');
    await activate(page, '#confirm');
    expect(new URL(page.url()).pathname).toBe('/account/links/remove');
    expect((await page.textContent('#error p'))?.trim()).toBe('This provider is the only way to sign in to your account, so it stays linked. Ask your administrator for a password first.');
    expect(await page.textContent('#error code')).toBe('last_sign_in_method');
    expect(await linkedProviders(page)).toContain('Upstream Gatehouse');
    await checkAtBothWidths(page, 'federation-unlink-last-method');
  });

  it('an account with a password removes the provider after its confirmation; the upstream user then gets an account of its own', async () => {
    const upstreamOther = await createUser({ dataDir: upstream.dataDir, authEnv: upstream.env }, 'linked-upstream');
    const users = JSON.parse(authctl(upstream.env, upstream.dataDir, ['user', 'list', '--json'])) as { items: { id: string; username: string }[] };
    const subject = users.items.find((u) => u.username === upstreamOther.username)!.id;
    const local = await createUser(stack, 'linked-local');
    expect(authctl(stack.authEnv, stack.dataDir, ['user', 'link', local.username, '--idp', 'upstream', '--subject', subject])).toContain(`linked ${local.username} to the upstream user ${subject}`);
    // The link holds: the upstream user signs in as the local account.
    const before = await signInThroughUpstream(upstreamOther);
    expect(await before.textContent('#user-name')).toBe(local.name);
    await before.context().close();

    const context = await browser.newContext();
    const own = await context.newPage();
    moreCspViolations.push(cspViolationsOf(own));
    await signIn(own, stack.appOneUrl, local);
    await own.goto(`${stack.authUrl}/account/security`);
    expect(await linkedProviders(own)).toContain('Upstream Gatehouse');
    await activate(own, '#link-list button[aria-label="Remove Upstream Gatehouse"]');
    expect(await own.textContent('h1')).toBe('Remove this sign-in provider?');
    expect(await own.textContent('body')).toContain('Upstream Gatehouse will no longer sign you in to this account. You can link it again by signing in with it.');
    await checkAtBothWidths(own, 'federation-unlink-confirm');
    await activate(own, '#confirm');
    expect(own.url()).toBe(`${stack.authUrl}/account/security`);
    expect(await own.textContent('#notice')).toBe('The provider was unlinked: it no longer signs you in here.');
    expect(await linkedProviders(own)).toBe('No other identity provider is linked to your account.');
    await checkAtBothWidths(own, 'federation-unlink-done');
    expect(JSON.parse(authctl(stack.authEnv, stack.dataDir, ['user', 'links', local.username, '--json']))).toEqual({ items: [] });
    await context.close();

    // The same upstream user now lands as an account of its own, not the local one.
    const after = await signInThroughUpstream(upstreamOther);
    expect(await after.textContent('#user-name')).toBe(upstreamOther.name);
    expect(await after.textContent('#user-email')).toBe(upstreamOther.email);
    await after.context().close();
    expect([...cspViolations, ...moreCspViolations.flat()]).toEqual([]);
  });
});
