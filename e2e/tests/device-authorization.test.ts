/**
 * The device authorization grant (RFC 8628) against the whole stack: oauth4webapi plays the
 * device (a public client registered with `authctl client add --grant
 * urn:ietf:params:oauth:grant-type:device_code`), Chromium plays the user's phone or laptop at
 * /activate. Approve (keyboard only: the code typed into the focused field, Enter, Enter on
 * Approve, then the usual password and TOTP) gives the device tokens that the API accepts; Deny
 * gives it access_denied; polling sooner than the interval gives slow_down; an expired code,
 * a wrong code and a code used twice each get a page that says what happened and offers the
 * form again. Every page is checked with axe-core and photographed at 390 and 1280 px, and no
 * answer triggers a Content-Security-Policy violation.
 *
 * The stack runs on the system clock, so the expired code is made by moving that one code's
 * issue time and expiry 601 s into the past in the server's database, which is what the
 * passing of that time would leave there.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, navigateBy, submitCode, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { createUser, type E2eUser } from '../support/users.ts';

const CLIENT_ID = 'living-room-tv';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const PENDING = 'authorization_pending';

let stack: Stack;
let as: oauth.AuthorizationServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let cspViolations: string[] = [];
const client: oauth.Client = { client_id: CLIENT_ID };

async function authorizeDevice(scope = 'openid profile movies:read') {
  const response = await oauth.deviceAuthorizationRequest(as, client, oauth.None(), new URLSearchParams({ scope }), insecure);
  return oauth.processDeviceAuthorizationResponse(as, client, response);
}

async function poll(deviceCode: string): Promise<{ tokens: oauth.TokenEndpointResponse } | { error: string }> {
  const response = await oauth.deviceCodeGrantRequest(as, client, oauth.None(), deviceCode, insecure);
  try {
    return { tokens: await oauth.processDeviceCodeResponse(as, client, response) };
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return { error: error.error };
    throw error;
  }
}

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
// Chromium applies autofocus at its next rendering step, which may come after the load event: focus is polled.
const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');

/** At /activate: types the code into the focused field and presses Enter. */
async function typeCode(userCode: string): Promise<void> {
  await page.goto(`${stack.authUrl}/activate`);
  // Chromium applies autofocus at the next rendering step, which may come after the load event.
  await page.waitForSelector('#user_code:focus');
  await page.keyboard.type(userCode);
  await navigateBy(page, () => page.keyboard.press('Enter'));
}

beforeAll(async () => {
  stack = await startStack({ name: 'device', clientApps: false });
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'client', 'add', CLIENT_ID, '--public', '--grant', GRANT, '--name', 'Living Room TV', '--first-party'], {
    cwd: stack.dataDir,
    env: stack.authEnv,
  });
  as = await oauth.processDiscoveryResponse(new URL(stack.authUrl), await oauth.discoveryRequest(new URL(stack.authUrl), insecure));
  user = await createUser(stack, 'device');
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

describe('device authorization grant in Chromium', () => {
  let approved: oauth.DeviceAuthorizationResponse;

  it('discovery names the endpoint; the device gets a code to show and is told to wait', async () => {
    expect(as.device_authorization_endpoint).toBe(`${stack.authUrl}/oauth2/v1/device/authorize`);
    approved = await authorizeDevice();
    expect(approved.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(approved).toMatchObject({ verification_uri: `${stack.authUrl}/activate`, expires_in: 600, interval: 5 });
    expect(await poll(approved.device_code)).toEqual({ error: PENDING });
  });

  it('slow polling: a second poll at once gets slow_down', async () => {
    expect(await poll(approved.device_code)).toEqual({ error: 'slow_down' });
  });

  it('the code page: one focused field, checked at both widths', async () => {
    await page.goto(`${stack.authUrl}/activate`);
    expect(await text('h1')).toBe('Connect a device');
    await page.waitForSelector('#user_code:focus');
    await checkAtBothWidths(page, 'device-code-page');
  });

  it('a wrong code says so, keeps what was typed and offers the field again', async () => {
    await typeCode('bcdf-ghjk');
    expect(await text('#activate-problem')).toBe('That code is not valid or has expired. Check the code on your device and try again, or start again on the device to get a new one.');
    expect(await text('p.muted code')).toBe('user_code_not_found');
    expect(await page.inputValue('#user_code')).toBe('bcdf-ghjk');
    await page.waitForSelector('#user_code:focus');
    await checkAtBothWidths(page, 'device-wrong-code');
  });

  it('approve by keyboard only: the confirmation names the app, its scopes and the device, then the usual sign-in', async () => {
    await typeCode(approved.user_code.replace('-', '').toLowerCase());
    expect(await text('h1')).toBe('Sign in to Living Room TV on a device?');
    expect(await text('#activate-code')).toBe(approved.user_code);
    expect(await page.locator('#activate-scopes li').allTextContents()).toEqual([
      'Know who you are (your Gatehouse user id) openid',
      'See your name and username profile',
      'View your movies movies:read',
    ]);
    expect(await text('#activate-device-ua')).toMatch(/^oauth4webapi\//);
    await checkAtBothWidths(page, 'device-confirm');
    // Approve has the focus; Tab reaches Deny and Shift+Tab comes back.
    await expect.poll(focusedId).toBe('activate-approve');
    await page.keyboard.press('Tab');
    await expect.poll(focusedId).toBe('activate-deny');
    await page.keyboard.press('Shift+Tab');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await text('h1')).toBe('Sign in');
    await submitPassword(page, user);
    await submitCode(page, user);
    expect(await text('h1')).toBe('Device connected');
    expect(await text('#activate-done')).toBe('You are signed in to Living Room TV on your device. It continues by itself; you can close this page.');
    await checkAtBothWidths(page, 'device-done');

    const result = await poll(approved.device_code);
    if (!('tokens' in result)) throw new Error(`no tokens: ${JSON.stringify(result)}`);
    expect(result.tokens.scope).toBe('openid profile movies:read');
    const movies = await fetch(`${stack.apiUrl}/api/movies`, { headers: { authorization: `Bearer ${result.tokens.access_token}` } });
    expect(movies.status).toBe(200);
  });

  it('a code used twice: the device code is refused, the user code is gone', async () => {
    expect(await poll(approved.device_code)).toEqual({ error: 'invalid_grant' });
    await typeCode(approved.user_code);
    expect(await text('p.muted code')).toBe('user_code_not_found');
  });

  it('a code confirmed once is refused at the page when entered again', async () => {
    const second = await authorizeDevice('openid');
    await typeCode(second.user_code);
    // The browser is signed in now: Approve ends at once.
    expect(await text('#activate-username')).toBe(user.username);
    await navigateBy(page, () => page.click('#activate-approve'));
    expect(await text('h1')).toBe('Device connected');
    await typeCode(second.user_code);
    expect(await text('#activate-problem')).toBe('That code has already been used. Start the sign-in again on your device to get a new code.');
    expect(await text('p.muted code')).toBe('user_code_used');
    await checkAtBothWidths(page, 'device-code-used');
    expect('tokens' in (await poll(second.device_code))).toBe(true);
  });

  it('deny from verification_uri_complete (a QR code): the device gets access_denied', async () => {
    const denied = await authorizeDevice();
    await page.goto(denied.verification_uri_complete!);
    await page.waitForSelector('#activate-deny');
    expect(await text('#activate-code')).toBe(denied.user_code);
    await page.keyboard.press('Tab');
    await expect.poll(focusedId).toBe('activate-deny');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await text('#activate-problem')).toBe('You denied the request: the device is not signed in. To connect a device, enter its code.');
    await checkAtBothWidths(page, 'device-denied');
    expect(await poll(denied.device_code)).toEqual({ error: 'access_denied' });
  });

  it('an expired code: the page says the code is not valid or expired, the device gets expired_token', async () => {
    const expired = await authorizeDevice();
    const db = new DatabaseSync(join(stack.dataDir, 'auth.db'));
    try {
      const past = Date.now() - 601_000;
      db.prepare("UPDATE oidc_payloads SET expires_at = ? WHERE model = 'DeviceCode' AND user_code = ?").run(past + 600_000, expired.user_code.replace('-', ''));
      const issued = `device_issued:${createHash('sha256').update(expired.device_code).digest('base64url')}`;
      db.prepare('UPDATE regulation_failures SET at_ms = at_ms - 601000 WHERE key = ?').run(issued);
    } finally {
      db.close();
    }
    await typeCode(expired.user_code);
    expect(await text('p.muted code')).toBe('user_code_not_found');
    await checkAtBothWidths(page, 'device-expired');
    expect(await poll(expired.device_code)).toEqual({ error: 'expired_token' });
    expect(cspViolations).toEqual([]);
  });
});
