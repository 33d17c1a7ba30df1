/**
 * Every page of the authorization server and of app-one at a phone's width (390 px) in Chromium:
 * no page scrolls sideways and no key or code is squeezed to a character or two per line; the
 * account page's section navigation (Profile, Security, Sessions, Apps) stands on one row, in
 * English and in German; the
 * enrollment's recovery codes stand in one column, one code to a line; form controls use the
 * page's font; a disabled button looks inactive; a card taller than the screen keeps a margin
 * above it; both apps serve their favicon; no page spells "e-mail", and counts take their plural. Each page is also checked with axe-core and
 * photographed at 390 and 1280 px (checkAtBothWidths), and no answer breaks its CSP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { confirmRecoveryCodes, cspViolationsOf, launchBrowser, navigateBy, shownTotpSecret, submitPassword, CODE_SUBMIT } from '../support/browser.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { controlsNotInPageFont, PHONE, sidewaysOverflow, squeezedTexts, wrappedNavs } from '../support/layout-checks.ts';
import { createUser, nextCode, type E2eUser } from '../support/users.ts';
import { adminUser, signInToConsole } from '../support/admin-console.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let cspViolations: string[] = [];

const h1 = async () => (await page.locator('h1').first().textContent())?.trim();

/** The phone checks, then axe and the screenshots at both widths; back at the phone's width after. */
async function checkPage(name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  expect({ name, overflow: await sidewaysOverflow(page) }).toEqual({ name, overflow: 0 });
  expect({ name, squeezed: await squeezedTexts(page) }).toEqual({ name, squeezed: [] });
  expect({ name, wrapped: await wrappedNavs(page) }).toEqual({ name, wrapped: [] });
  expect({ name, fonts: await controlsNotInPageFont(page) }).toEqual({ name, fonts: [] });
  // One spelling on every page: "email", as Okta and Auth0 write it.
  expect({ name, hyphenated: /e-mail/i.exec((await page.locator('body').textContent()) ?? '')?.[0] }).toEqual({ name, hyphenated: undefined });
  await checkAtBothWidths(page, `phones-${name}`);
  await page.setViewportSize(PHONE);
}

beforeAll(async () => {
  stack = await startStack({ name: 'phones' });
  user = await createUser(stack, 'phones');
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: PHONE });
  page = await context.newPage();
  cspViolations = cspViolationsOf(page);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

describe('every page at 390 px in Chromium', () => {
  it('the sign-in and enrollment: login, forgot password, the TOTP key and QR code, the recovery codes in one column', async () => {
    await page.goto(`${stack.authUrl}/account/forgot-password`);
    await checkPage('forgot-password');

    await page.goto(`${stack.appOneUrl}/`);
    expect(await h1()).toBe('Sign in');
    await checkPage('login');

    await submitPassword(page, user);
    user.totpSecret = await shownTotpSecret(page);
    await checkPage('enroll-totp');
    // The key in groups of four on at most two lines, and the QR code big enough to scan from a screen.
    const key = page.locator('#totp-secret');
    expect(await key.textContent()).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    expect((await key.boundingBox())!.height).toBeLessThan(60);
    const qr = await page.locator('.qr svg').boundingBox();
    expect(qr!.width).toBeGreaterThanOrEqual(200);

    await page.fill('#code', await nextCode(user));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await page.locator('#codes-saved').count()).toBe(1);
    await checkPage('recovery-codes');
    const codes = await page.locator('#recovery-codes code').evaluateAll((els) =>
      els.map((el) => {
        const box = el.getBoundingClientRect();
        return { left: Math.round(box.left), lines: el.getClientRects().length, font: getComputedStyle(el).fontFamily };
      }),
    );
    expect(codes).toHaveLength(10);
    // One column (every code starts at the same x), one line per code, in a monospace font.
    expect(new Set(codes.map((c) => c.left)).size).toBe(1);
    expect(codes.every((c) => c.lines === 1 && c.font.includes('monospace'))).toBe(true);
    await confirmRecoveryCodes(page);
    await page.waitForURL(`${stack.appOneUrl}/`);
  });

  it("app-one's pages: the landing page (its table and add form), the sign-out question, an error page", async () => {
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
    await page.fill('#add-item input[name=value]', 'A film whose title is long enough to wrap on a phone');
    await navigateBy(page, () => page.click('#add-item button[type=submit]'));
    expect(await page.locator('#items tbody tr').count()).toBe(1);
    await checkPage('app-one-landing');
    await page.goto(`${stack.appOneUrl}/logout`);
    await checkPage('app-one-logout');
    await page.goto(`${stack.appOneUrl}/callback?state=none&code=none`);
    await checkPage('app-one-error');
  });

  it('the account page: a tall card keeps a margin above it, and "Sign out other sessions" without other sessions looks disabled', async () => {
    await page.goto(`${stack.authUrl}/account`);
    await page.waitForLoadState('load');
    expect(await h1()).toBe('Your account');
    await checkPage('account');
    // "Sign out all other sessions" is on the Sessions page.
    await page.goto(`${stack.authUrl}/account/sessions`);
    await checkPage('account-sessions');

    const style = (selector: string) =>
      page.locator(selector).first().evaluate((el) => {
        const s = getComputedStyle(el);
        return { background: s.backgroundColor, color: s.color, cursor: s.cursor };
      });
    const disabled = page.locator('#sign-out-others');
    expect(await disabled.isDisabled()).toBe(true);
    const inactive = await style('#sign-out-others');
    expect(inactive.cursor).toBe('not-allowed');
    await disabled.evaluate((el: HTMLButtonElement) => (el.disabled = false));
    const active = await style('#sign-out-others');
    expect(active.background).not.toBe(inactive.background);
    expect(active.color).not.toBe(inactive.color);
    expect(active.cursor).toBe('pointer');

    // The Security page is the tall one.
    await page.goto(`${stack.authUrl}/account/security`);
    await checkPage('account-security');
    expect((await page.locator('p:has(#recovery-remaining)').textContent())?.trim()).toBe('You have 10 unused recovery codes.');
    const card = await page.locator('main.card').boundingBox();
    expect(card!.height).toBeGreaterThan(PHONE.height);
    expect(card!.y).toBeGreaterThanOrEqual(16);
  });

  it('the account section navigation stands on one row, in English and in German', async () => {
    await page.goto(`${stack.authUrl}/account/apps`);
    expect(await page.locator('.account-nav li').allTextContents()).toEqual(['Profile', 'Security', 'Sessions', 'Apps']);
    await checkPage('account-apps');
    await page.setExtraHTTPHeaders({ 'accept-language': 'de-DE,de;q=0.9' });
    try {
      await page.goto(`${stack.authUrl}/account/apps`);
      expect(await page.locator('.account-nav li').allTextContents()).toEqual(['Profil', 'Sicherheit', 'Sitzungen', 'Apps']);
      await checkPage('account-apps-de');
    } finally {
      await page.setExtraHTTPHeaders({});
    }
  });

  it('the pages of the sign-out and the 404 page', async () => {
    await page.goto(`${stack.authUrl}/no-such-page`);
    await checkPage('auth-not-found');
    await page.goto(`${stack.appOneUrl}/no-such-page`);
    await checkPage('app-one-not-found');
    await page.goto(`${stack.authUrl}/oauth2/v1/logout`);
    expect(await h1()).toBe('Sign out of Gatehouse?');
    await checkPage('logout-question');
    await navigateBy(page, () => page.click('#logout-confirm'));
    expect(await h1()).toBe('Signed out');
    await checkPage('signed-out');
    await page.goto(`${stack.appOneUrl}/signed-out`);
    await checkPage('app-one-signed-out');
  });

  it('the second-factor page of an enrolled user', async () => {
    await page.goto(`${stack.appTwoUrl}/`);
    await submitPassword(page, user);
    expect(await page.locator('#code').count()).toBe(1);
    await checkPage('second-factor');
  });

  it('the device activation page, the web authenticator, and every section of the admin console with a user in it', async () => {
    await page.goto(`${stack.authUrl}/activate`);
    await checkPage('activate');
    await page.goto(`${stack.authUrl}/authenticator`);
    await checkPage('authenticator');

    const admin = await adminUser(stack, 'phones-admin');
    await signInToConsole(page, stack, admin);
    const sections = await page.locator('nav[aria-label="Admin console"] a').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).pathname));
    expect(sections.length).toBeGreaterThan(3);
    for (const path of sections) {
      await page.goto(`${stack.authUrl}${path}`);
      await checkPage(`console${path.replaceAll('/', '-')}`);
    }
    await page.goto(`${stack.authUrl}/admin/users`);
    await navigateBy(page, () => page.locator('#user-table tbody a').first().click());
    await checkPage('console-user');
  });

  it('both apps serve their favicon as an SVG cached a day, linked from every page', async () => {
    for (const origin of [stack.authUrl, stack.appOneUrl]) {
      const res = await page.request.get(`${origin}/static/favicon.svg`);
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toBe('image/svg+xml');
      expect(res.headers()['cache-control']).toBe('public, max-age=86400');
      expect((await res.text()).startsWith('<svg')).toBe(true);
    }
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('/static/favicon.svg');
    expect(cspViolations).toEqual([]);
  });

  it('the squeeze check finds a code broken a character to a line (the check itself can fail)', async () => {
    const probe = await context.newPage();
    await probe.setContent('<main><div style="width:24px"><code id="probe" style="word-break:break-all">ABCD2345EFGH</code></div></main>');
    expect(await squeezedTexts(probe)).toEqual(['code#probe: ABCD2345EFGH']);
    await probe.close();
  });

  it('the navigation check finds a section wrapped onto a second line (the check itself can fail)', async () => {
    const probe = await context.newPage();
    await probe.setContent('<main><nav class="account-nav" aria-label="Account sections" style="width:200px"><ul style="display:flex;flex-wrap:wrap;list-style:none;padding:0"><li style="width:60px">Profile</li><li style="width:60px">Security</li><li style="width:60px">Sessions</li><li style="width:60px">Apps</li></ul></nav></main>');
    expect(await wrappedNavs(probe)).toEqual(['Account sections: Profile Security Sessions | Apps']);
    await probe.close();
  });
});
