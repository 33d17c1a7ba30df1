/**
 * Rules for dates and times on pages:
 * - one form everywhere: the date and time in the page's locale (`dateStyle: medium`,
 *   `timeStyle: short`), or the time relative to now ("5 minutes ago", "vor 5 Minuten");
 * - the server does not know the reader's time zone: it renders in UTC and says so, inside a
 *   `<time datetime>` holding the instant, which a page script may rewrite in the browser's zone;
 *   a relative time needs no zone, and carries the absolute one in its title;
 * - relative units: seconds under a minute, minutes under an hour, hours under a day, days under a
 *   month, months under a year, years beyond (`numeric: auto`: "yesterday", "now");
 * - the Intl formatters of a locale are created on its first use and kept (bench/README.md,
 *   "Memory": ICU data stays out of memory until a page needs it).
 */
import { html, type SafeHtml } from '../html.ts';

interface Formats {
  dateTime: Intl.DateTimeFormat;
  relative: Intl.RelativeTimeFormat;
}

const formatsByLocale = new Map<string, Formats>();

function formats(locale: string): Formats {
  let found = formatsByLocale.get(locale);
  if (!found) {
    found = {
      dateTime: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }),
      relative: new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }),
    };
    formatsByLocale.set(locale, found);
  }
  return found;
}

/** The instant `ms` in `locale`, in UTC, naming the zone: "Nov 27, 2026, 8:48 AM UTC". */
export function formatDateTime(ms: number, locale: string): string {
  return `${formats(locale).dateTime.format(ms)} UTC`;
}

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Infinity],
];

/** The instant `ms` seen from `now`, in `locale`: "5 minutes ago", "in 2 hours", "vor 3 Tagen". */
export function formatRelative(ms: number, now: number, locale: string): string {
  let value = (ms - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(value) < size) return formats(locale).relative.format(Math.trunc(value), unit);
    value /= size;
  }
  return formats(locale).relative.format(Math.trunc(value), 'year');
}

/** How a `<time>` element shows its instant. */
export type TimeStyle = 'datetime' | 'relative';

/**
 * `<time datetime="…" data-local="…">`: the instant as `formatDateTime` (style `datetime`), or as
 * `formatRelative` with the absolute time as its title (style `relative`, which needs `now`).
 */
export function timeElement(ms: number, locale: string, style: TimeStyle = 'datetime', now?: number): SafeHtml {
  const iso = new Date(ms).toISOString();
  const absolute = formatDateTime(ms, locale);
  if (style === 'relative' && now !== undefined) {
    return html`<time datetime="${iso}" data-local="relative" title="${absolute}">${formatRelative(ms, now, locale)}</time>`;
  }
  return html`<time datetime="${iso}" data-local="datetime">${absolute}</time>`;
}
