/**
 * The HTML representation: a small readable page, items as a table. Rules: every value is
 * escaped; the page loads nothing and runs nothing, and {@link HTML_CSP} says so (the one
 * inline style is allowed by its hash).
 */
import { createHash } from 'node:crypto';
import type { Item } from '../collections/item-validator.ts';
import type { View } from './view.ts';

const STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}' +
  'th,td{border:1px solid #bbb;padding:.3rem .7rem;text-align:left}th{background:#eee}dt{font-weight:bold}';
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export const HTML_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function page(title: string, body: string): string {
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>\n`
  );
}

function table(items: readonly Item[], columns: readonly string[]): string {
  if (items.length === 0) return '<p>No items.</p>';
  const head = columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  const rows = items
    .map((item) => `<tr>${columns.map((c) => `<td>${escapeHtml(item[c] === undefined ? '' : String(item[c]))}</td>`).join('')}</tr>`)
    .join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/** `columns` are `id` and the collection's declared fields, in order. */
export function viewToHtml(view: View, columns: readonly string[]): string {
  switch (view.kind) {
    case 'items':
      return page(view.collection, table(view.items, columns));
    case 'page': {
      const next = view.next === null ? '' : `<p><a rel="next" href="${escapeHtml(view.next)}">Next page</a></p>`;
      return page(view.collection, table(view.items, columns) + next);
    }
    case 'item':
      return page(`${view.collection} ${view.item.id}`, table([view.item], columns));
  }
}

export function problemToHtml(problem: { title: string; status: number; detail?: string | undefined } & Record<string, unknown>): string {
  const rows = Object.entries(problem)
    .filter(([k, v]) => k !== 'title' && v !== undefined)
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v))}</dd>`)
    .join('');
  return page(`${problem.status} ${problem.title}`, `<dl>${rows}</dl>`);
}

/** The documentation page of one problem code (`/problems/<code>`). */
export function problemDescriptionToHtml(code: string, description: { status: number; title: string; meaning: string; action: string }): string {
  return page(
    `Problem: ${code}`,
    `<dl><dt>code</dt><dd>${escapeHtml(code)}</dd><dt>status</dt><dd>${description.status} ${escapeHtml(description.title)}</dd>` +
      `<dt>what it means</dt><dd>${escapeHtml(description.meaning)}</dd><dt>what to do</dt><dd>${escapeHtml(description.action)}</dd></dl>` +
      `<p>Problem documents with this <code>type</code> carry <code>code</code> = <code>${escapeHtml(code)}</code> (RFC 9457).</p>`,
  );
}

/** The index of the problem codes (`/problems`): each links to its page (relative links, never a request's host). */
export function problemIndexToHtml(entries: readonly { code: string; status: number; title: string; href: string }[]): string {
  const rows = entries
    .map((e) => `<tr><td><a href="${escapeHtml(e.href)}">${escapeHtml(e.code)}</a></td><td>${e.status}</td><td>${escapeHtml(e.title)}</td></tr>`)
    .join('');
  return page('Problem types', `<table><thead><tr><th scope="col">code</th><th scope="col">status</th><th scope="col">title</th></tr></thead><tbody>${rows}</tbody></table>`);
}
