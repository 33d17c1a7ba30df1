/**
 * Sign-in with an upstream identity provider in a real browser, against the whole stack. The
 * upstream is a second Gatehouse (its own process, database and users, on 127.0.0.1 so the
 * browser keeps its cookies apart from the stack's on localhost); the operator adds it with one
 * `authctl idp add`. From app-one: the login page shows "Continue with Upstream Gatehouse"
 * (axe, 390 and 1280 px, reached by keyboard), the upstream's own login page and second factor,
 * back through the callback, where the new account is provisioned and the upstream's TOTP (amr
 * `otp`) is trusted, to app-one's landing page signed in as that account; then app-two signs in
 * by SSO without any login page. No CSP workaround: every answer is enforced as sent.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { freePort, stopChild, waitUntilReady } from '../support/processes.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, submitCode } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, type E2eUser } from '../support/users.ts';

let stack: Stack;
let upstream: { url: string; env: Record<string, string>; dataDir: string; child: ChildProcess };
let browser: Browser;
let page: Page;
let upstreamUser: E2eUser;
let cspViolations: string[] = [];

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
  stack = await startStack({ name: 'federation' });
  upstream = await startUpstream();
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
