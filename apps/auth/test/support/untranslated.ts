/**
 * The texts of a reference catalogue (English) that a page in another language still shows.
 * Rules:
 * - only the page's visible text counts: tags, scripts and styles are dropped, entities decoded;
 * - a text is looked for when it is a plain string the translation words differently (a name the
 *   same in both, like "Gatehouse", is no sign of a missing translation);
 * - a text is found as whole words, so "Email" is not found in "E-Mail-Adresse".
 */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ', middot: '·' };

/** What a reader sees of an HTML page, one space between texts. */
export function visibleText(page: string): string {
  return page
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#?\w+);/g, (entity, name: string) => ENTITIES[name] ?? entity)
    .replace(/\s+/g, ' ');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The reference texts, worded differently by the translation, that `page` shows. */
export function untranslatedText(page: string, reference: Readonly<Record<string, unknown>>, translation: Readonly<Record<string, unknown>>): string[] {
  const seen = visibleText(page);
  return Object.entries(reference)
    .filter(([key, text]) => typeof text === 'string' && text !== translation[key] && new RegExp(`(?<![\\p{L}-])${escapeRegExp(text)}(?![\\p{L}-])`, 'u').test(seen))
    .map(([, text]) => text as string);
}
