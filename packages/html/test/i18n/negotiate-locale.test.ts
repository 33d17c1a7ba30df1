import { describe, expect, it } from 'vitest';
import { negotiateLocale } from '../../src/i18n.ts';

const SUPPORTED = ['en', 'de'] as const;
const pick = (header: string | undefined, cookie?: string) => negotiateLocale([...SUPPORTED], header, cookie);

describe('negotiateLocale', () => {
  it('gives the default without a header, for an empty one and for unknown languages', () => {
    expect(pick(undefined)).toBe('en');
    expect(pick('')).toBe('en');
    expect(pick('fr-FR, fr;q=0.9, ja;q=0.8')).toBe('en');
    expect(pick('garbage;;;, ,;q=')).toBe('en');
  });

  it('matches a supported language exactly, without case', () => {
    expect(pick('de')).toBe('de');
    expect(pick('DE')).toBe('de');
    expect(pick('en')).toBe('en');
  });

  it('falls back from a region to its language (de-AT → de, en-GB → en)', () => {
    expect(pick('de-AT')).toBe('de');
    expect(pick('de-CH-1996')).toBe('de');
    expect(pick('en-GB,de;q=0.5')).toBe('en');
  });

  it('follows quality values, highest first, header order on ties', () => {
    expect(pick('en;q=0.4, de;q=0.8')).toBe('de');
    expect(pick('fr, de;q=0.7, en;q=0.3')).toBe('de');
    expect(pick('de;q=0.5, en;q=0.5')).toBe('de');
    expect(pick('en;q=0.5, de;q=0.5')).toBe('en');
    expect(pick('de-AT;q=0.9, en-US;q=1.0')).toBe('en');
  });

  it('skips ranges refused with q=0 and reads a malformed quality as 1', () => {
    expect(pick('de;q=0, en;q=0.1')).toBe('en');
    expect(pick('fr, de;q=abc')).toBe('de');
    expect(pick('de;q=0')).toBe('en');
  });

  it('lets * stand for the default', () => {
    expect(pick('fr, *;q=0.5, de;q=0.1')).toBe('en');
  });

  it('lets a supported cookie override the header, and ignores any other cookie value', () => {
    expect(pick('de', 'en')).toBe('en');
    expect(pick('en-US,en;q=0.9', 'de')).toBe('de');
    expect(pick('de', 'fr')).toBe('de');
    expect(pick('de', '')).toBe('de');
    expect(pick(undefined, 'DE')).toBe('de');
  });
});
