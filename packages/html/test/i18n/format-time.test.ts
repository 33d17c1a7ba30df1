import { describe, expect, it } from 'vitest';
import { formatDateTime, formatRelative, timeElement } from '../../src/i18n.ts';

const AT = Date.UTC(2026, 10, 27, 8, 48, 5);
const MIN = 60_000;

describe('formatDateTime', () => {
  it('shows the instant in the locale, in UTC, naming the zone', () => {
    expect(formatDateTime(AT, 'en')).toBe('Nov 27, 2026, 8:48 AM UTC');
    expect(formatDateTime(AT, 'de')).toBe('27.11.2026, 08:48 UTC');
  });
});

describe('formatRelative', () => {
  it('picks the unit by distance, past and future, in the locale', () => {
    expect(formatRelative(AT - 5 * MIN, AT, 'en')).toBe('5 minutes ago');
    expect(formatRelative(AT - 5 * MIN, AT, 'de')).toBe('vor 5 Minuten');
    expect(formatRelative(AT + 2 * 60 * MIN, AT, 'en')).toBe('in 2 hours');
    expect(formatRelative(AT + 2 * 60 * MIN, AT, 'de')).toBe('in 2 Stunden');
    expect(formatRelative(AT - 30_000, AT, 'en')).toBe('30 seconds ago');
    expect(formatRelative(AT, AT, 'de')).toBe('jetzt');
    expect(formatRelative(AT - 24 * 60 * MIN, AT, 'en')).toBe('yesterday');
    expect(formatRelative(AT - 3 * 24 * 60 * MIN, AT, 'de')).toBe('vor 3 Tagen');
    expect(formatRelative(AT - 400 * 24 * 60 * MIN, AT, 'en')).toBe('last year');
  });
});

describe('timeElement', () => {
  it('holds the instant in datetime, the text in UTC, for the page script to localise', () => {
    expect(timeElement(AT, 'de').value).toBe('<time datetime="2026-11-27T08:48:05.000Z" data-local="datetime">27.11.2026, 08:48 UTC</time>');
  });

  it('shows a relative time with the absolute one as its title', () => {
    expect(timeElement(AT - 5 * MIN, 'en', 'relative', AT).value).toBe(
      '<time datetime="2026-11-27T08:43:05.000Z" data-local="relative" title="Nov 27, 2026, 8:43 AM UTC">5 minutes ago</time>',
    );
  });
});
