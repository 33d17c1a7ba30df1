/**
 * prompt=select_account in a real browser against the whole stack: a first-party
 * public app (registered with `authctl client add --first-party --public`; its redirect URI is a
 * small server this test runs) signs a user in, then asks with prompt=select_account. The
 * account-selection page is checked with axe-core and photographed at 390 and 1280 px; "Continue
 * as" (keyboard only) lands at the app with a code for the same `sub`; "Use another account"
 * (keyboard only) leads through the login of a second user (a long one-word username), whose
 * `sub` the next code carries, and the page asks next time as that user, still 390 px wide. No CSP workaround: every answer is enforced as sent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, navigateBy, screenshot, submitCode, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths, seriousViolations } from '../support/axe.ts';
import { createUser, type E2eUser } from '../support/users.ts';

const CLIENT_ID = 'film-club';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let first: E2eUser;
let second: E2eUser;
let rp: Server;
let redirectUri: string;
let firstSub: string;
const verifiers = new Map<string, string>();
let cspViolations: string[] = [];

/** The relying party's redirect URI: a page that shows what the authorization server sent back. */
async function startRelyingParty(): Promise<Server> {
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://rp').searchParams;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>Film Club</title><main><h1>Film Club</h1><p id="result">${query.has('code') ? 'code received' : `error: ${query.get('error') ?? 'none'}`}</p></main></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** An authorization request of the public client with PKCE (S256); the verifier is kept by state. */
function authorizeUrl(state: string, prompt?: string): string {
  const verifier = randomBytes(32).toString('base64url');
  verifiers.set(state, verifier);
  const url = new URL('/oauth2/v1/authorize', stack.authUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    scope: 'openid profile',
    state,
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(prompt ? { prompt } : {}),
  }).toString();
  return url.toString();
}

/** The browser is at the app: its code, redeemed with the request's verifier, and the ID token's `sub`. */
async function landedSub(state: string): Promise<string> {
  const landed = new URL(page.url());
  expect(`${landed.origin}${landed.pathname}`).toBe(redirectUri);
  expect(landed.searchParams.get('state')).toBe(state);
  expect(landed.searchParams.get('iss')).toBe(stack.authUrl);
  const response = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: landed.searchParams.get('code')!, redirect_uri: redirectUri, client_id: CLIENT_ID, code_verifier: verifiers.get(state)! }),
  });
  expect(response.status).toBe(200);
  const { id_token } = (await response.json()) as { id_token: string };
  return String(decodeJwt(id_token).sub);
}

const toApp = () => page.waitForURL((url) => url.href.startsWith(redirectUri));
const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
// Chromium applies autofocus at its next rendering step, which may come after the load event: focus is polled.
const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');

beforeAll(async () => {
  rp = await startRelyingParty();
  redirectUri = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  stack = await startStack({ name: 'select-account', clientApps: false });
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'client', 'add', CLIENT_ID, '--public', '--first-party', '--redirect-uri', redirectUri, '--name', 'Film Club', '--json'], {
    cwd: stack.dataDir,
    env: stack.authEnv,
  });
  first = await createUser(stack, 'select-one');
  // A long one-word username (56 of the 64 characters allowed): it must not widen the page at 390 px.
  second = await createUser(stack, 'select-two-with-a-long-name-that-fills-the-button');
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => rp?.close(resolve));
});

describe('issue 29, prompt=select_account in Chromium', () => {
  it('without a session, prompt=select_account is the login page; the login is the selection', async () => {
    await page.goto(authorizeUrl('fresh', 'select_account'));
    expect(await text('h1')).toBe('Sign in');
    await submitPassword(page, first);
    await Promise.all([toApp(), submitCode(page, first)]);
    firstSub = await landedSub('fresh');
  });

  it('with a session, the account-selection page names the app and the account, axe-clean at 390 and 1280 px', async () => {
    await page.goto(authorizeUrl('pick', 'select_account'));
    expect(await text('h1')).toBe('Choose an account');
    expect(await text('#select-account-client')).toBe('Film Club');
    expect(await text('#select-account-continue')).toBe(`Continue as ${first.username}`);
    expect(await text('#select-account-another')).toBe('Use another account');
    await checkAtBothWidths(page, 'select-account-page');
  });

  it('"Continue as", by keyboard only, lands at the app with a code for the same account', async () => {
    // "Continue as" has the focus when the page opens; Tab reaches "Use another account" and Shift+Tab comes back.
    await expect.poll(focusedId).toBe('select-account-continue');
    await page.keyboard.press('Tab');
    await expect.poll(focusedId).toBe('select-account-another');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(focusedId).toBe('select-account-continue');
    await Promise.all([toApp(), page.keyboard.press('Enter')]);
    expect(await text('#result')).toBe('code received');
    expect(await landedSub('pick')).toBe(firstSub);
  });

  it('"Use another account", by keyboard only, signs in the second user in place of the first', async () => {
    await page.goto(authorizeUrl('switch', 'select_account'));
    await expect.poll(focusedId).toBe('select-account-continue');
    await page.keyboard.press('Tab');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await text('h1')).toBe('Sign in');
    await submitPassword(page, second);
    // The previous account is signed out by the server's own form (posted by its same-origin script), then the app gets its code.
    await Promise.all([toApp(), submitCode(page, second)]);
    expect(await text('#result')).toBe('code received');
    const secondSub = await landedSub('switch');
    expect(secondSub).not.toBe(firstSub);

    // The session holds the second account now.
    await page.goto(authorizeUrl('after', 'select_account'));
    expect(await text('#select-account-continue')).toBe(`Continue as ${second.username}`);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'select-account-page-long-name-390');
    await Promise.all([toApp(), page.click('#select-account-continue')]);
    expect(await landedSub('after')).toBe(secondSub);
    expect(cspViolations).toEqual([]);
  });
});
