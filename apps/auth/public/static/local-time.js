// @ts-check
/**
 * Dates and times in the reader's own time zone (views/layout.ts loads it on every page). The
 * server renders each instant in UTC inside <time datetime="…" data-local="…">; here:
 * - data-local="datetime": the text becomes the instant in the page's language (<html lang>) and
 *   the browser's time zone, as the server's format (medium date, short time);
 * - data-local="relative": the text ("5 minutes ago") stays; its title becomes the absolute time
 *   in the browser's zone;
 * - an instant that does not parse, or a browser without Intl, keeps the server's text.
 */
document.addEventListener('DOMContentLoaded', () => {
  const lang = document.documentElement.lang || undefined;
  /** @type {Intl.DateTimeFormat} */
  let format;
  try {
    format = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' });
  } catch {
    return;
  }
  for (const element of document.querySelectorAll('time[data-local]')) {
    if (!(element instanceof HTMLTimeElement)) continue;
    const instant = Date.parse(element.dateTime);
    if (Number.isNaN(instant)) continue;
    const local = format.format(instant);
    if (element.dataset.local === 'datetime') element.textContent = local;
    else if (element.dataset.local === 'relative') element.title = local;
  }
});
