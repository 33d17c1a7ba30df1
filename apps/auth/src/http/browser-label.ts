/**
 * A short, human label for a User-Agent header ("Chrome on Linux"), shown beside each session
 * on the account page and on the authenticator beside each sign-in request. Rules:
 * - only the browser family and the operating system are named, never versions (a label, not
 *   a fingerprint);
 * - tokens are tested in an order that respects how browsers borrow each other's names (Edge
 *   and Opera say "Chrome", Chrome says "Safari", HeadlessChrome is Chrome);
 * - anything unrecognised is "Unknown browser" / "unknown system"; an empty header is
 *   "Unknown browser"; the input is cut to 512 characters before any test.
 */
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
  if (!ua.trim()) return 'Unknown browser';
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? 'Unknown browser';
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1];
  return system ? `${browser} on ${system}` : browser;
}
