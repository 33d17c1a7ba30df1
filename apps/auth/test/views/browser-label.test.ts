import { describe, expect, it } from 'vitest';
import { browserLabel, sayBrowserLabel } from '../../src/views/browser-label.ts';
import { languageFor } from '../../src/i18n/page-language.ts';

describe('browserLabel', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on Linux'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36', 'Chrome on Linux'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70', 'Edge on Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1', 'Chrome on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
    ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36', 'Samsung Internet on Android'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/116.0.0.0', 'Opera on Linux'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
    ['curl/8.11.0', 'curl'],
    ['something else entirely', 'Unknown browser'],
    ['', 'Unknown browser'],
    [undefined, 'Unknown browser'],
  ])('%s → %s', (userAgent, label) => {
    expect(browserLabel(userAgent)).toBe(label);
  });

  it('names no version, and looks only at the first 512 characters', () => {
    expect(browserLabel(`${'x'.repeat(512)} Firefox/133.0`)).toBe('Unknown browser');
  });

  it('is said in the page\'s language: the names stay, the words around them change', () => {
    const german = languageFor('de');
    expect(sayBrowserLabel('Chrome on Linux', german)).toBe('Chrome unter Linux');
    expect(sayBrowserLabel('Samsung Internet on Android', german)).toBe('Samsung Internet unter Android');
    expect(sayBrowserLabel('Unknown browser', german)).toBe('Unbekannter Browser');
    expect(sayBrowserLabel('Unknown browser on Linux', german)).toBe('Unbekannter Browser unter Linux');
    expect(sayBrowserLabel('curl', german)).toBe('curl');
    for (const label of ['Chrome on Linux', 'Unknown browser', 'Unknown browser on Linux', 'curl']) expect(sayBrowserLabel(label, languageFor('en'))).toBe(label);
  });
});
