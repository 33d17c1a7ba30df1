import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { literalPageText } from '@gatehouse/auth/testing';

// Every word a page of the relying party shows comes from its catalogue (i18n/), so a German
// reader never meets an English text the catalogue lacks. Read from the sources: a page the
// HTTP tests do not open is checked too.
const SOURCES = fileURLToPath(new URL('../../src/', import.meta.url));

describe('the relying party pages take their words from the catalogue', () => {
  it('no page source writes a text of its own', () => {
    const texts = literalPageText(SOURCES, {
      skip: ['i18n/'],
      pageCalls: ['messagePage', 'layout', 'backToLanding'],
      // The API item's own field name, a column heading like the item's other field names.
      allowed: ['id'],
    });
    expect(texts).toEqual([]);
  });
});
