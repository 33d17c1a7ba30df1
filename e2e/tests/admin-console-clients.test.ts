/**
 * The admin console's Clients section in Chromium against the whole stack, keyboard only: an
 * admin (group admins, signed in with a second factor) registers a confidential client in the
 * console, copies its secret from the page shown once, and an independent relying party
 * (openid-client) signs the admin in with that client through a real authorization-code flow
 * with PKCE in the same browser. Then the admin rotates the secret and removes the client, each
 * after a confirmation page, and the removed client's secret is refused. Every page
 * is checked with axe-core and screenshotted at 390 and 1280 px; no CSP workaround.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAtBothWidths } from '../support/axe.ts';
import { navigateBy } from '../support/browser.ts';
import { closeConsoleSession, openConsoleSession, tabTo } from '../support/admin-console.ts';
import type { Stack } from '../support/stack.ts';
import type { E2eUser } from '../support/users.ts';

/** The relying party's callback: a server of the test's own, which keeps the URL it was called with. */
let REDIRECT_URI: string;
let rp: Server;
const callbacks: string[] = [];

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let admin: E2eUser;
let csp: string[];
let secret: string;

beforeAll(async () => {
  rp = createServer((req, res) => {
    callbacks.push(new URL(req.url!, REDIRECT_URI).href);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Console App</title><p>Signed in.</p></html>');
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  REDIRECT_URI = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/console-app/callback`;
  ({ stack, browser, context, page, admin, csp } = await openConsoleSession({ name: 'admin-console-clients', admin: 'console-clients', context: { permissions: ['clipboard-read', 'clipboard-write'] } }));
});

afterAll(async () => {
  await closeConsoleSession({ stack, browser, context });
  rp?.close();
});

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();

/** Follows the focused link or submits the focused button with the keyboard. */
const enter = () => navigateBy(page, () => page.keyboard.press('Enter'));

describe('issue 33, the admin console: clients', () => {
  it('lists the clients and opens the registration form from the keyboard', async () => {
    await page.goto(`${stack.authUrl}/admin/clients`);
    expect(await text('h1')).toBe('Clients');
    await checkAtBothWidths(page, 'admin-console-clients-list');
    await tabTo(page, '#new-client');
    await enter();
    expect(page.url()).toBe(`${stack.authUrl}/admin/clients/new`);
    expect(await text('h1')).toBe('Register a client');
    await checkAtBothWidths(page, 'admin-console-clients-new');
  });

  it('shows a refused registration in its form, as typed, with what is wrong', async () => {
    await tabTo(page, '#client_id');
    await page.keyboard.type('console-app');
    await tabTo(page, '#name');
    await page.keyboard.type('Console App');
    await tabTo(page, '#redirect_uris');
    await page.keyboard.type(`${REDIRECT_URI}#fragment`);
    await tabTo(page, '#first_party');
    await page.keyboard.press('Space');
    await tabTo(page, '#new-client-form button[type=submit]');
    await enter();
    expect(await page.locator('#client-error code').allTextContents()).toEqual(['invalid_redirect_uri', 'redirect_uris']);
    expect(await page.inputValue('#client_id')).toBe('console-app');
    expect(await page.inputValue('#redirect_uris')).toBe(`${REDIRECT_URI}#fragment`);
    expect(await page.isChecked('#first_party')).toBe(true);
    await checkAtBothWidths(page, 'admin-console-clients-new-refused');
  });

  it('registers a confidential client and shows its secret once, with a working copy button', async () => {
    await tabTo(page, '#redirect_uris');
    await page.keyboard.press('Control+a');
    await page.keyboard.type(REDIRECT_URI);
    await tabTo(page, '#new-client-form button[type=submit]');
    await enter();
    expect(await text('#flash')).toBe('Client console-app is registered.');
    secret = (await text('#client-secret'))!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await tabTo(page, '#copy-secret');
    await page.keyboard.press('Enter');
    await page.locator('#copy-status', { hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await checkAtBothWidths(page, 'admin-console-clients-created');
    await tabTo(page, '#to-client');
    await enter();
    expect(await text('#detail-client-id')).toBe('console-app');
    expect(await text('#detail-first-party')).toBe('yes');
    expect(await page.content()).not.toContain(secret);
    await checkAtBothWidths(page, 'admin-console-clients-detail');
    // The client's audit events name the admin, and link back to the client.
    await tabTo(page, '#client-audit');
    await enter();
    expect(new URL(page.url()).search).toBe('?client=console-app');
    expect(await page.locator('#audit-list tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')))).toEqual(['admin.client.created']);
    expect(await page.locator('#audit-list tbody tr td').nth(4).textContent()).toBe(`admin ${admin.username}`);
    await checkAtBothWidths(page, 'admin-console-clients-audit');
    await tabTo(page, '#audit-list a[href="/admin/clients/console-app"]');
    await enter();
    expect(page.url()).toBe(`${stack.authUrl}/admin/clients/console-app`);
  });

  it('an independent relying party (openid-client) signs the admin in with the new client: authorization code with PKCE', async () => {
    const config = await oidc.discovery(new URL(stack.authUrl), 'console-app', undefined, oidc.ClientSecretBasic(secret), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    // The admin's SSO session signs them in at once (first-party: no consent page).
    await page.goto(url.href);
    await page.waitForURL((u) => u.href.startsWith(REDIRECT_URI));
    // (The browser also asks the relying party for its favicon.)
    const callback = callbacks.filter((u) => u.startsWith(REDIRECT_URI));
    expect(callback).toHaveLength(1);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(callback[0]!), { pkceCodeVerifier: verifier, expectedState: state });
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(stack.authUrl);
    expect(claims.aud).toBe('console-app');
    expect(claims.preferred_username).toBe(admin.username);
  });

  it('rotates the secret after a confirmation page, then removes the client after another', async () => {
    await page.goto(`${stack.authUrl}/admin/clients/console-app`);
    await tabTo(page, '#rotate-form button[type=submit]');
    await enter();
    expect(await text('h1')).toBe('Rotate the secret of Console App?');
    await checkAtBothWidths(page, 'admin-console-clients-rotate-confirm');
    await tabTo(page, '#confirm-action');
    await enter();
    const rotated = (await text('#client-secret'))!;
    expect(rotated).not.toBe(secret);
    // The time in the browser's zone and language (local-time.js), not the server's UTC.
    expect(await text('#previous-expires')).toMatch(/^The replaced secret keeps working until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M\.$/);

    await page.goto(`${stack.authUrl}/admin/clients/console-app`);
    await tabTo(page, '#remove-client');
    await enter();
    expect(await text('h1')).toBe('Remove the client Console App?');
    expect(await page.locator('#confirm li').allTextContents()).toEqual([
      'Delete the registration of console-app: it can no longer sign anyone in.',
      'End its access and refresh tokens at once, and its secrets stop working.',
      'This cannot be undone: registering the same client ID again gives it a new secret.',
    ]);
    await checkAtBothWidths(page, 'admin-console-clients-remove-confirm');
    await tabTo(page, '#confirm-action');
    await enter();
    expect(page.url()).toBe(`${stack.authUrl}/admin/clients`);
    expect(await text('#flash')).toBe('Client console-app is removed.');
    expect(await page.locator('a[href="/admin/clients/console-app"]').count()).toBe(0);

    const token = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`console-app:${rotated}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT_URI }),
    });
    expect(token.status).toBe(401);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_client');
    expect(csp).toEqual([]);
  });
});
