/**
 * A short, human label for a User-Agent header ("Chrome on Linux"), shown beside each session
 * on the account page and on the authenticator beside each sign-in request. Rules:
 * - only the browser family and the operating system are named, never versions (a label, not
 *   a fingerprint);
 * - tokens are tested in an order that respects how browsers borrow each other's names (Edge
 *   and Opera say "Chrome", Chrome says "Safari", HeadlessChrome is Chrome);
 * - anything unrecognised is "Unknown browser" / "unknown system"; an empty header is
 *   "Unknown browser"; the input is cut to 512 characters before any test;
 * - the label is kept in English (the session list stores it); a page says it in its language
 *   (sayBrowserLabel): the names stay, "Unknown browser" and "… on …" are the catalogue's.
 */
import type { PageLanguage } from '../i18n/page-language.ts';

export const UNKNOWN_BROWSER = 'Unknown browser';
const ON = ' on ';
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\b(?:Headless)?Chrom(?:e|ium)\/|\bCriOS\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

export function browserLabel(userAgent: string | undefined): string {
  const ua = (userAgent ?? '').slice(0, 512);
  if (!ua.trim()) return UNKNOWN_BROWSER;
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? UNKNOWN_BROWSER;
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1];
  return system ? `${browser}${ON}${system}` : browser;
}

/** A label of browserLabel in the page's language. */
export function sayBrowserLabel(label: string, language: PageLanguage): string {
  const at = label.lastIndexOf(ON);
  const browser = at === -1 ? label : label.slice(0, at);
  const name = browser === UNKNOWN_BROWSER ? language.t('browser.unknown') : browser;
  return at === -1 ? name : language.t('browser.on', { browser: name, system: label.slice(at + ON.length) });
}
