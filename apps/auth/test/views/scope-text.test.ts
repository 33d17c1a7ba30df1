import { describe, expect, it } from 'vitest';
import { describeScope } from '../../src/consent/scope-descriptions.ts';
import { languageFor } from '../../src/i18n/page-language.ts';
import { en } from '../../src/i18n/en.ts';
import { scopeText } from '../../src/views/scope-text.ts';

describe('scopeText', () => {
  it('shows the English description in English, the catalogue in German, and an unknown scope by its name', () => {
    const de = languageFor('de');
    expect(scopeText(describeScope('email'), languageFor('en'))).toBe('See your email address');
    expect(scopeText(describeScope('email'), de)).toBe('Ihre E-Mail-Adresse sehen');
    expect(scopeText(describeScope('admin:keys'), de)).toBe('Die Signaturschlüssel wechseln');
    expect(scopeText(describeScope('movies:read'), de)).toBe('Ihre movies ansehen');
    expect(scopeText(describeScope('movies:write'), de)).toBe('Ihre movies anlegen, ändern und löschen');
    expect(scopeText(describeScope('weird.scope'), de)).toBe('weird.scope');
  });

  it("the English catalogue's scope words are the consent descriptions", () => {
    for (const [key, text] of Object.entries(en)) {
      if (!key.startsWith('scope.') || typeof text !== 'string') continue;
      expect(describeScope(key.slice('scope.'.length)).description, key).toBe(text);
    }
  });
});
