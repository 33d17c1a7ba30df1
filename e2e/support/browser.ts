/**
 * Debian's Chromium driven by playwright-core, plus the page steps every scenario shares.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ARTIFACTS } from './stack.ts';
import { nextCode, type E2eUser } from './users.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--lang=en-US'],
  });
}

/** Saves the page as `e2e/artifacts/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Collects the page's Content-Security-Policy violations as Chromium reports them on the console. */
export function cspViolationsOf(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  return violations;
}

/**
 * Runs `act` (a click or key press that submits a form or follows a link) and waits until the page
 * it leads to has loaded. Waiting for the load state alone is a race: the page before the
 * navigation is loaded already, so the wait may end before the navigation starts.
 */
export async function navigateBy(page: Page, act: () => Promise<unknown>): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() }), act()]);
  await page.waitForLoadState('load');
}

/** The submit button of the one-time-code form (the page may offer other methods in forms of their own). */
export const CODE_SUBMIT = 'form:has(#code) button[type=submit]';

/** On the authorization server's login page: submits username and password. */
export async function submitPassword(page: Page, user: E2eUser, password = user.password): Promise<void> {
  await page.fill('#username', user.username);
  await page.fill('#password', password);
  await navigateBy(page, () => page.click('form:has(#password) button[type=submit]'));
}

/** The TOTP key an enrollment page shows (grouped in fours on screen; data-value holds it whole). */
export async function shownTotpSecret(page: Page): Promise<string> {
  return (await page.locator('#totp-secret').getAttribute('data-value'))!;
}

/**
 * On the second-factor page: reads the TOTP secret when the page enrolls one (first sign-in),
 * then submits the next unused code; when the recovery codes are shown next (after the first
 * code of an enrollment), confirms "I have saved them".
 */
export async function submitCode(page: Page, user: E2eUser): Promise<void> {
  if (await page.locator('#totp-secret').count()) user.totpSecret = await shownTotpSecret(page);
  await showCodeForm(page);
  await page.fill('#code', await nextCode(user));
  await navigateBy(page, () => page.click(CODE_SUBMIT));
  await confirmRecoveryCodes(page);
}

/**
 * On the second-factor page: when another method is offered first (a passkey or push used last,
 * or preferred), opens "Try another method" so the code form shows.
 */
export async function showCodeForm(page: Page): Promise<void> {
  await showMethod(page, '#code');
}

/** On the second-factor page: opens "Try another method" when `selector` (a method's field or button) is behind it. */
export async function showMethod(page: Page, selector: string): Promise<void> {
  const closed = await page.locator('#other-methods:not([open])').count();
  if (closed && (await page.locator(`#other-methods ${selector}`).count())) await page.click('#try-another');
}

/** On the recovery-codes step (shown until confirmed): "I have saved them". No-op elsewhere. */
export async function confirmRecoveryCodes(page: Page): Promise<void> {
  if (!(await page.locator('#codes-saved').count())) return;
  await navigateBy(page, () => page.click('#codes-saved'));
}

/** From an app's URL to its landing page: login page, password, code (enrolling on first sign-in). */
export async function signIn(page: Page, appUrl: string, user: E2eUser): Promise<void> {
  await page.goto(`${appUrl}/`);
  await submitPassword(page, user);
  await submitCode(page, user);
  await page.waitForURL(`${appUrl}/`);
}

