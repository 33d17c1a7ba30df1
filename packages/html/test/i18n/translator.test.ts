import { describe, expect, it } from 'vitest';
import { html, SafeHtml } from '../../src/html.ts';
import { createTranslator, MISSING_MESSAGE_MARKER, type Translation } from '../../src/i18n.ts';

const en = {
  'page.title': 'Sign in',
  'page.greeting': (values: { name: string }) => `Hello, ${values.name}`,
  'page.strong': (values: { name: string }) => html`to <strong>${values.name}</strong>`,
};
const de: Translation<typeof en> = {
  'page.title': 'Anmelden',
  'page.greeting': (values) => `Hallo, ${values.name}`,
  'page.strong': (values) => html`zu <strong>${values.name}</strong>`,
};

describe('createTranslator', () => {
  it('looks up plain messages and messages with values, text or markup', () => {
    const t = createTranslator<typeof en, 'de'>('de', de);
    expect(t.locale).toBe('de');
    expect(t.t('page.title')).toBe('Anmelden');
    expect(t.t('page.greeting', { name: 'Ada' })).toBe('Hallo, Ada');
    const strong = t.t('page.strong', { name: '<b>' });
    expect(strong).toBeInstanceOf(SafeHtml);
    expect(String(strong)).toBe('zu <strong>&lt;b&gt;</strong>');
  });

  it('renders a missing key as the marker, never as another language', () => {
    const partial = { 'page.title': 'Anmelden' } as unknown as Translation<typeof en>;
    const t = createTranslator<typeof en, 'de'>('de', partial);
    expect(t.t('page.greeting', { name: 'Ada' })).toBe(`${MISSING_MESSAGE_MARKER}page.greeting}}`);
    expect(t.text('errors.nothing')).toBe('{{missing:errors.nothing}}');
    expect(t.text('toString')).toBe('{{missing:toString}}');
    expect(t.has('page.title')).toBe(true);
    expect(t.has('page.greeting')).toBe(false);
  });

  it('refuses, at type level, a translation that lacks a key', () => {
    // @ts-expect-error 'page.strong' is missing
    const incomplete: Translation<typeof en> = { 'page.title': 'x', 'page.greeting': () => 'y' };
    expect(Object.keys(incomplete)).toHaveLength(2);
  });
});
