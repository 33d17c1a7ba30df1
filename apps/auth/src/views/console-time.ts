/**
 * Times on the admin console's pages. Rules:
 * - an instant is a `<time data-local>` in the viewer's locale (PageLanguage.dateTime): UTC from
 *   the server, the browser's zone once /static/local-time.js has run; a missing one is "never";
 * - an age or a duration is rounded down to its largest unit (days, hours, minutes), "less than
 *   a minute" below one, in the viewer's language.
 */
import type { SafeHtml } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';

export function consoleTime(language: PageLanguage, ms: number | null | undefined): SafeHtml | string {
  return ms === null || ms === undefined ? language.t('console.never') : language.dateTime(ms);
}

export function consoleAge(language: PageLanguage, ms: number): string {
  const units = [
    [86_400_000, 'console.age.days'],
    [3_600_000, 'console.age.hours'],
    [60_000, 'console.age.minutes'],
  ] as const;
  for (const [size, key] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return language.t(key, { n });
  }
  return language.t('console.age.lessThanMinute');
}
