/**
 * A time left, shown as a sentence that counts down. Rules:
 * - the server writes the sentence with the time rounded to what a reader needs ("about 1
 *   minute", "about 10 minutes", "less than a minute"), so the page is right without script;
 * - /static/countdown.js rewrites it every second as minutes and seconds ("0:42") from the
 *   seconds the server counted, never from an absolute time, so a wrong clock on the device
 *   cannot shift it; at zero it shows the expired sentence;
 * - the sentence is not a live region: a screen reader is not interrupted every second.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';

export const COUNTDOWN_SCRIPT = '/static/countdown.js';

/** "less than a minute", "about 1 minute", "about N minutes" (in the page's language). */
export function aboutRemaining(seconds: number, language: PageLanguage = ENGLISH): string {
  if (seconds < 60) return language.t('countdown.lessThanMinute');
  return language.t('countdown.aboutMinutes', { n: Math.round(seconds / 60) });
}

/** `<p>{lead} {about N minutes}.</p>`, counted down by the script; `expired` replaces it at zero. */
export function countdown(options: { id: string; seconds: number; lead: string; expired: string; language?: PageLanguage }): SafeHtml {
  const seconds = Math.max(0, Math.floor(options.seconds));
  return html`<p class="muted countdown" id="${options.id}" data-countdown="${String(seconds)}" data-countdown-lead="${options.lead}" data-countdown-expired="${options.expired}">${seconds > 0 ? `${options.lead} ${aboutRemaining(seconds, options.language)}.` : options.expired}</p>`;
}
