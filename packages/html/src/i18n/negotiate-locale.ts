/**
 * Rules for choosing a page's language:
 * - a valid language cookie (the page's language switch) wins over the browser's Accept-Language;
 * - Accept-Language ranges are tried by quality value, highest first, in header order on ties;
 *   `q=0` means "not this one"; a malformed quality counts as 1;
 * - a range matches a supported locale exactly (case-insensitive), else by its primary subtag
 *   (`de-AT` → `de`); `*` matches the default;
 * - nothing matching (no header, unknown languages) gives the default: the first supported locale.
 */

/** The locale a request's pages are shown in, from the supported ones (the first is the default). */
export function negotiateLocale<L extends string>(supported: readonly [L, ...L[]], acceptLanguage: string | undefined, cookie?: string): L {
  const known = (tag: string | undefined): L | undefined => supported.find((locale) => locale.toLowerCase() === tag?.toLowerCase());
  const chosen = known(cookie);
  if (chosen) return chosen;
  for (const range of languageRanges(acceptLanguage ?? '')) {
    if (range === '*') return supported[0];
    const match = known(range) ?? known(range.split('-')[0]);
    if (match) return match;
  }
  return supported[0];
}

/** The ranges of an Accept-Language header, best first, without the refused (`q=0`) ones. */
function languageRanges(header: string): string[] {
  const ranges: { tag: string; q: number; at: number }[] = [];
  header.split(',').forEach((part, at) => {
    const [tag = '', ...params] = part.trim().split(';');
    if (!/^(\*|[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*)$/.test(tag.trim())) return;
    const qParam = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    const parsed = qParam === undefined ? 1 : Number(qParam.slice(2));
    const q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 1;
    if (q > 0) ranges.push({ tag: tag.trim(), q, at });
  });
  return ranges.sort((a, b) => b.q - a.q || a.at - b.at).map((range) => range.tag);
}
