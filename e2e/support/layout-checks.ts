/**
 * Layout checks a screenshot alone would leave to the eye: at a phone's width (390 px) nothing
 * scrolls sideways and no text (a key, a code, a value) is squeezed to a character or two per
 * line; a section navigation stands on one row; a few computed styles every page must share
 * (form controls in the page's font).
 */
import type { Page } from 'playwright-core';

export const PHONE = { width: 390, height: 844 } as const;

/** How far the page is wider than its viewport (0 when nothing scrolls sideways). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));
}

/**
 * The texts laid out at fewer than four characters per line over three lines or more (a key or
 * code wrapping a character to a line), each as `<tag>#id: text`; empty when there is none.
 */
export async function squeezedTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      if (el.children.length > 0 || el.offsetParent === null) continue;
      const text = (el.textContent ?? '').replace(/\s+/g, '');
      if (text.length < 6) continue;
      const range = document.createRange();
      range.selectNodeContents(el);
      const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size >= 3 && text.length / lines.size < 4) found.push(`${el.tagName.toLowerCase()}#${el.id}: ${text.slice(0, 40)}`);
    }
    return found;
  });
}

/** The computed font-family of the body and of each button, input, select and textarea that differs from it. */
export async function controlsNotInPageFont(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const body = getComputedStyle(document.body).fontFamily;
    return Array.from(document.querySelectorAll<HTMLElement>('button, input:not([type=hidden]), select, textarea'))
      // A control set in monospace on purpose (a code to type) is not an inherited default.
      .filter((el) => getComputedStyle(el).fontFamily !== body && !getComputedStyle(el).fontFamily.includes('monospace'))
      .map((el) => `${el.tagName.toLowerCase()}#${el.id}: ${getComputedStyle(el).fontFamily}`);
  });
}

/**
 * The section navigations (`.account-nav`: Profile, Security, Sessions, Apps) whose items stand
 * on more than one line, each as its label and its items line by line (`Account sections:
 * Profile Security Sessions | Apps`); empty when every one is a single row. A navigation that
 * scrolls sideways inside its own box is a single row.
 */
export async function wrappedNavs(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.account-nav')).flatMap((nav) => {
      const lines = new Map<number, string[]>();
      for (const item of Array.from(nav.querySelectorAll<HTMLElement>('li'))) {
        const top = Math.round(item.getBoundingClientRect().top);
        lines.set(top, [...(lines.get(top) ?? []), (item.textContent ?? '').trim()]);
      }
      if (lines.size <= 1) return [];
      const rows = [...lines.entries()].sort(([a], [b]) => a - b).map(([, items]) => items.join(' '));
      return [`${nav.getAttribute('aria-label') ?? 'nav'}: ${rows.join(' | ')}`];
    }),
  );
}
