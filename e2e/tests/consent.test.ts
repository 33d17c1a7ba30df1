/**
 * The consent step in a real browser against the whole stack: a relying party that is
 * not first-party (registered with `authctl client add`, as an operator registers a third-party
 * app; its redirect URI is a small server this test runs) sends the user through the login to
 * the consent page, which shows the app's logo (registered with `--logo-uri`: a PNG this test
 * draws and serves from another loopback origin, which the page's CSP allows for images on that
 * page only), is checked with axe-core and photographed at 390 and 1280 px; Allow is
 * pressed with the keyboard only and the browser lands at the app with a code. The account page
 * then lists the app under Connected apps (checked and photographed the same way). Revoke, by
 * keyboard only, opens a confirmation page (axe-core, 390 and 1280 px) whose Cancel changes
 * nothing and whose Confirm removes the app, the message in view at 390 px; the next
 * authorization asks again, where Deny returns access_denied.
 * No CSP workaround: every answer is enforced as sent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from '../support/stack.ts';
import { cspViolationsOf, launchBrowser, submitCode, submitPassword } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { activate, expectInViewport, PHONE } from '../support/keyboard.ts';
import { createUser, type E2eUser } from '../support/users.ts';

const CLIENT_ID = 'movie-night';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let rp: Server;
let redirectUri: string;
let logoServer: Server;
let logoUri: string;
let cspViolations: string[] = [];

/** The relying party's redirect URI: a page that shows what the authorization server sent back. */
async function startRelyingParty(): Promise<Server> {
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://rp').searchParams;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>Movie Night</title><main><h1>Movie Night</h1><p id="result">${query.has('code') ? 'code received' : `error: ${query.get('error') ?? 'none'}`}</p></main></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A PNG of one colour, `size` px square, drawn here (RFC 2083 chunks: IHDR, IDAT, IEND). */
function solidPng(size: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

/** The app's logo host: its own loopback origin, apart from the redirect URI's. */
async function startLogoServer(): Promise<Server> {
  const png = solidPng(96, [178, 34, 52]);
  const server = createServer((req, res) => {
    if (req.url !== '/movie-night.png') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** An authorization request of the public client, with PKCE (S256). */
function authorizeUrl(state: string): string {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const url = new URL('/oauth2/v1/authorize', stack.authUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri,
    scope: 'openid profile email movies:read',
    state,
    nonce: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
// Chromium applies autofocus at its next rendering step, which may come after the load event: focus is polled.
const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');


beforeAll(async () => {
  rp = await startRelyingParty();
  redirectUri = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  logoServer = await startLogoServer();
  logoUri = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}/movie-night.png`;
  stack = await startStack({ name: 'consent', clientApps: false });
  // As an operator registers someone else's app: no --first-party.
  execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'client', 'add', CLIENT_ID, '--public', '--redirect-uri', redirectUri, '--name', 'Movie Night', '--logo-uri', logoUri, '--json'], {
    cwd: stack.dataDir,
    env: stack.authEnv,
  });
  user = await createUser(stack, 'consent');
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
  await new Promise((resolve) => logoServer?.close(resolve));
});

describe('issue 29, the consent step in Chromium', () => {
  it('after the login, the app that is not first-party asks: its name, its logo and each scope in plain words', async () => {
    await page.goto(authorizeUrl('first'));
    expect(await text('h1')).toBe('Sign in');
    // The login page names the app with its logo too (drawn at 40 px), loaded from the logo's origin.
    const loginLogo = page.locator('#client-logo');
    await loginLogo.evaluate((img: HTMLImageElement) => img.decode());
    expect(await loginLogo.evaluate((img: HTMLImageElement) => ({ alt: img.alt, src: img.currentSrc, natural: img.naturalWidth }))).toEqual({ alt: 'Movie Night logo', src: logoUri, natural: 96 });
    await submitPassword(page, user);
    await submitCode(page, user);
    expect(await text('h1')).toBe('Allow Movie Night to access your account?');
    // The logo loaded from its own origin (the CSP let it through), drawn at 48 px whatever its size.
    const logo = page.locator('#consent-logo');
    await logo.evaluate((img: HTMLImageElement) => img.decode());
    expect(await logo.evaluate((img: HTMLImageElement) => ({ alt: img.alt, src: img.currentSrc, natural: img.naturalWidth }))).toEqual({ alt: 'Movie Night logo', src: logoUri, natural: 96 });
    expect(await logo.boundingBox()).toMatchObject({ width: 48, height: 48 });
    expect(await text('#consent-username')).toBe(user.username);
    expect(await page.locator('#consent-scopes li').allTextContents()).toEqual([
      'Know who you are (your Gatehouse user id) openid',
      'See your name and username profile',
      'See your email address email',
      'View your movies movies:read',
    ]);
    await checkAtBothWidths(page, 'consent-page');
  });

  it('Allow, by keyboard only, continues to the app with a code', async () => {
    // Allow has the focus when the page opens; Tab reaches Deny and Shift+Tab comes back.
    await expect.poll(focusedId).toBe('consent-allow');
    await page.keyboard.press('Tab');
    await expect.poll(focusedId).toBe('consent-deny');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(focusedId).toBe('consent-allow');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUri)), page.keyboard.press('Enter')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('first');
    expect(landed.searchParams.get('iss')).toBe(stack.authUrl);
    expect(landed.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    expect(await text('#result')).toBe('code received');
  });

  it('the account page lists the app under Connected apps; Revoke asks first, Cancel keeps it and Confirm removes it, by keyboard', async () => {
    await page.goto(`${stack.authUrl}/account/apps`);
    expect(await text('#apps h2')).toBe('Connected apps');
    expect(await page.locator('#app-list li').count()).toBe(1);
    expect(await text('#app-list li strong')).toBe('Movie Night');
    expect(await text('#app-list li .muted')).toBe('openid profile email movies:read');
    await checkAtBothWidths(page, 'account-connected-apps');

    // Revoke opens the confirmation page; Cancel goes back with the app still connected.
    await page.setViewportSize(PHONE);
    await activate(page, '#app-list li button.danger');
    expect(new URL(page.url()).pathname).toBe('/account/apps/revoke');
    expect(await text('h1')).toBe("Revoke this app's access?");
    expect(await text('#confirm-subject')).toBe('Movie Night');
    expect(await text('#confirm-consequence')).toBe('Movie Night can no longer use your account: its sign-ins and refresh tokens end at once, and it asks for your permission again the next time you use it.');
    await checkAtBothWidths(page, 'account-confirm-revoke-app');
    await page.setViewportSize(PHONE);
    await activate(page, '#cancel');
    expect(new URL(page.url()).pathname).toBe('/account/apps');
    expect(await page.locator('#notice').count()).toBe(0);
    expect(await text('#app-list li strong')).toBe('Movie Night');

    // Confirm revokes: the app is gone and the message is in view at 390 px.
    await activate(page, '#app-list li button.danger');
    await activate(page, '#confirm');
    expect(new URL(page.url()).pathname).toBe('/account/apps');
    expect(await text('#notice')).toBe("The application's access was revoked. Its sign-ins and refresh tokens ended.");
    await expectInViewport(page, '#notice');
    expect(await text('#app-list')).toBe('No application has asked for access to your account.');
  });

  it('the next authorization asks again, and Deny returns access_denied to the app', async () => {
    await page.goto(authorizeUrl('second'));
    expect(await text('h1')).toBe('Allow Movie Night to access your account?');
    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUri)), page.click('#consent-deny')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('state')).toBe('second');
    expect(landed.searchParams.get('iss')).toBe(stack.authUrl);
    expect(await text('#result')).toBe('error: access_denied');
    expect(cspViolations).toEqual([]);
  });
});
