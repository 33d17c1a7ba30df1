/**
 * Accessibility check of the page a browser test is on: axe-core runs inside the page and
 * every violation of impact "serious" or "critical" fails the test, named with its nodes.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot } from './browser.ts';

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core on the page; answers the serious and critical violations (empty when none). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // The pages' CSP allows no inline script, so axe is injected as an evaluated string, which
  // playwright runs through the DevTools protocol, outside the page's CSP; once per document (the
  // same page is checked at both widths).
  if (!(await page.evaluate(() => typeof (window as { axe?: { run?: unknown } }).axe?.run === 'function'))) await page.evaluate(axe.source);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/**
 * The checks every page gets at a phone's and a desktop's width (390 and 1280 px): no serious
 * axe violation, no horizontal scrolling, and a screenshot `<name>-<width>.png`.
 */
export async function checkAtBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    expect(await seriousViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshot(page, `${name}-${width}`);
  }
}
