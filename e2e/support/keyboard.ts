/**
 * Driving a page by keyboard only: Tab to an element, Enter on it, type into a field, and a check
 * that an element is inside the viewport (where the user is looking).
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { navigateBy } from './browser.ts';

/** Presses Tab until the element matching `selector` has the focus (at most 120 times). */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Tabs to a link or button and presses Enter, waiting for the page it leads to. */
export async function activate(page: Page, selector: string): Promise<void> {
  await tabTo(page, selector);
  await navigateBy(page, () => page.keyboard.press('Enter'));
}

/** Tabs to a field and types into it. */
export async function typeInto(page: Page, selector: string, value: string): Promise<void> {
  await tabTo(page, selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(value);
}

/** The element is visible and wholly inside the viewport as the page stands (not scrolled to). */
export async function expectInViewport(page: Page, selector: string): Promise<void> {
  const box = await page.locator(selector).boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, selector).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
}

/** Phone and desktop viewports. */
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };
