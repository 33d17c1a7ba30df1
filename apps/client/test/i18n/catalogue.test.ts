import { describe, expect, it } from 'vitest';
import { MISSING_MESSAGE_MARKER } from '@gatehouse/html/i18n';
import { de } from '../../src/i18n/de.ts';
import { en } from '../../src/i18n/en.ts';
import { languageFor } from '../../src/i18n/page-language.ts';
import { ClientError } from '../../src/errors/client-error.ts';

// Every language has every key of the English catalogue, and nothing else; each message renders
// to text without the missing-message marker.
const SAMPLE = { id: 7, app: 'app-one', collection: 'movies', field: 'title', status: 404, title: 'Not Found', detail: 'gone', code: 'not_found' };

describe('the relying party catalogues', () => {
  it('German has exactly the English keys', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
  });

  it.each([
    ['en', en],
    ['de', de],
  ] as const)('every %s message renders without the missing marker', (_, catalogue) => {
    for (const [key, message] of Object.entries(catalogue)) {
      const text = String(typeof message === 'function' ? (message as (v: unknown) => unknown)(SAMPLE) : message);
      expect(text, key).not.toBe('');
      expect(text, key).not.toContain(MISSING_MESSAGE_MARKER);
    }
  });

  it('an error page shows the error itself in English and the texts of its code in German', () => {
    const error = new ClientError(403, 'csrf_failed', 'Request refused', 'This form has expired or did not come from this application. Reload the page and try again.');
    expect(languageFor('en').errorTexts(error)).toEqual({ title: 'Request refused', message: error.message });
    expect(languageFor('de').errorTexts(error)).toEqual({
      title: 'Anfrage abgelehnt',
      message: 'Dieses Formular ist abgelaufen oder stammt nicht von dieser Anwendung. Laden Sie die Seite neu und versuchen Sie es erneut.',
    });
  });
});
