/**
 * The first sign-in's TOTP enrollment keeps its state, in Chromium against the
 * whole stack, keyboard only on the authorization server's pages, each page checked with axe-core
 * at 390 and 1280 px (screenshots in e2e/artifacts). Signing in again (as after a reload or an expired page, and on another device)
 * shows the same key; "Start over" makes a new one; the code is computed with otplib from the key
 * as shown (grouped in fours); the recovery codes appear only after that code, in one column, with
 * Copy, Download and Print; "I have saved them" goes on to app-one, signed in.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { checkAtBothWidths } from '../support/axe.ts';
import { tabTo } from '../support/admin-console.ts';
import { cspViolationsOf, launchBrowser, navigateBy } from '../support/browser.ts';
import { createUser, nextCode, type E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let user: E2eUser;
const cspViolations: string[][] = [];

beforeAll(async () => {
  stack = await startStack({ name: 'enrollment' });
  browser = await launchBrowser();
  context = await browser.newContext({ acceptDownloads: true });
  user = await createUser(stack, 'enrolling');
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.stop();
});

async function newPage(where = context): Promise<Page> {
  const page = await where.newPage();
  cspViolations.push(cspViolationsOf(page));
  return page;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent())?.trim();

/** From app-one to the second-factor page, typing the password with the keyboard only. */
async function toSecondFactor(page: Page): Promise<void> {
  await page.goto(`${stack.appOneUrl}/`);
  await tabTo(page, '#username');
  await page.keyboard.type(user.username);
  await tabTo(page, '#password');
  await page.keyboard.type(user.password);
  await navigateBy(page, () => page.keyboard.press('Enter'));
}

/** The key as the page shows it, spaces removed (authenticator apps ignore them too). */
const shownKey = async (page: Page) => (await text(page, '#totp-secret'))!.replaceAll(' ', '');

describe('issue 34, an enrollment that keeps its state, in Chromium', () => {
  it('the same key on every sign-in until "Start over"; recovery codes after the first code; "I have saved them" → app-one', async () => {
    const page = await newPage();
    await toSecondFactor(page);
    expect(await text(page, 'h1')).toBe('Set up two-step verification');
    const key = await shownKey(page);
    expect(await text(page, '#totp-secret')).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    expect(await page.locator('#totp-secret').getAttribute('data-value')).toBe(key);
    expect(await page.locator('#recovery-codes').count()).toBe(0);
    expect(await page.locator('button[data-copy="totp-secret"]').isVisible()).toBe(true);
    const qr = await page.locator('figure.qr svg').boundingBox();
    expect(qr!.width).toBeGreaterThanOrEqual(200);
    await checkAtBothWidths(page, 'enrollment-1-key');

    // Starting again (as after a reload, Back or an expired page) and on another device: the same key.
    await toSecondFactor(page);
    expect(await shownKey(page)).toBe(key);
    const elsewhere = await browser.newContext();
    const other = await newPage(elsewhere);
    await toSecondFactor(other);
    expect(await shownKey(other)).toBe(key);
    await elsewhere.close();

    // "Start over" makes a new key, deliberately, and says so.
    await tabTo(page, '#start-over');
    await navigateBy(page, () => page.keyboard.press('Enter'));
    const fresh = await shownKey(page);
    expect(fresh).not.toBe(key);
    expect(await text(page, '.notice')).toBe('This is a new key. Remove the old Gatehouse entry from your authenticator app, then scan this QR code.');

    // The code from the key as shown, typed with a space as the app displays it.
    user.totpSecret = fresh;
    const code = await nextCode(user);
    await tabTo(page, '#code');
    await page.keyboard.type(`${code.slice(0, 3)} ${code.slice(3)}`);
    await navigateBy(page, () => page.keyboard.press('Enter'));
    expect(await text(page, 'h1')).toBe('Save your recovery codes');
    const codes = page.locator('#recovery-codes li');
    expect(await codes.count()).toBe(10);
    for (const name of ['Copy', 'Download', 'Print']) expect(await page.getByRole('button', { name, exact: true }).isVisible()).toBe(true);
    await checkAtBothWidths(page, 'enrollment-2-recovery-codes');

    // At 390 px: one column, each code on one line, nothing clipped, in a readable size.
    await page.setViewportSize({ width: 390, height: 844 });
    const boxes = await codes.evaluateAll((items) =>
      items.map((li) => {
        const code = li.querySelector('code')!;
        const rect = code.getBoundingClientRect();
        return { left: rect.left, height: rect.height, fits: code.scrollWidth <= code.clientWidth, size: parseFloat(getComputedStyle(code).fontSize) };
      }),
    );
    expect(new Set(boxes.map((b) => Math.round(b.left))).size).toBe(1);
    for (const box of boxes) {
      expect(box.fits).toBe(true);
      expect(box.size).toBeGreaterThanOrEqual(16);
      expect(box.height).toBeLessThan(box.size * 3);
    }

    // Download: a .txt file with the ten codes, one per line.
    const shown = (await codes.allTextContents()).map((c) => c.trim());
    await tabTo(page, 'button[data-download]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe('gatehouse-recovery-codes.txt');
    const saved = readFileSync((await download.path())!, 'utf8');
    for (const c of shown) expect(saved).toContain(`${c}\n`);

    // "I have saved them" → app-one, signed in.
    await tabTo(page, '#codes-saved');
    await Promise.all([page.waitForURL(`${stack.appOneUrl}/`), page.keyboard.press('Enter')]);
    expect(await text(page, '#user-name')).toBe(user.name);
    expect(cspViolations.flat()).toEqual([]);
  });
});
