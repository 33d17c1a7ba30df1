/**
 * The XML representation. Element shape (documented in README.md):
 * - list (v1) and single item (v1):  <items collection="movies"><item><id>1</id><title>…</title></item>…</items>
 * - page (v2):                       <page collection="movies"><items><item>…</item></items><limit>50</limit><next>…</next></page>
 *                                    (`next` is empty on the last page)
 * - item (v2 reads, POST, PUT):      <item collection="movies"><id>1</id><title>…</title></item>
 * - problem:                         RFC 9457 Appendix B, <problem xmlns="urn:ietf:rfc:7807">…</problem>,
 *                                    arrays as repeated <i> elements.
 * Rules: every text and attribute value is escaped; characters XML 1.0 cannot carry are dropped;
 * element names come from the collection file, whose schema only allows [a-z][a-z0-9_]*.
 */
import type { Item } from '../collections/item-validator.ts';
import type { View } from './view.ts';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

// XML 1.0 Char production: tab, LF, CR, and U+0020 upwards except surrogates and U+FFFE/U+FFFF.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(value: string): string {
  return value
    .replace(NOT_XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Writes a JSON-like value as the content of an element: objects as child elements, arrays as <i>. */
function content(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => `<i>${content(v)}</i>`).join('');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `<${k}>${content(v)}</${k}>`)
      .join('');
  }
  return escapeXml(String(value));
}

const itemElement = (item: Item, attributes = ''): string => `<item${attributes}>${content(item)}</item>`;

export function viewToXml(view: View): string {
  const collection = ` collection="${escapeXml(view.collection)}"`;
  switch (view.kind) {
    case 'items':
      return `${DECLARATION}<items${collection}>${view.items.map((i) => itemElement(i)).join('')}</items>\n`;
    case 'page':
      return (
        `${DECLARATION}<page${collection}><items>${view.items.map((i) => itemElement(i)).join('')}</items>` +
        `<limit>${view.limit}</limit><next>${view.next === null ? '' : escapeXml(view.next)}</next></page>\n`
      );
    case 'item':
      return `${DECLARATION}${itemElement(view.item, collection)}\n`;
  }
}

export function problemToXml(problem: Record<string, unknown>): string {
  return `${DECLARATION}<problem xmlns="urn:ietf:rfc:7807">${content(problem)}</problem>\n`;
}
