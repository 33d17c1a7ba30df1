import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { literalPageText } from '../support/page-source-text.ts';

// Every word a page of the authorization server shows comes from its catalogue (i18n/), so a
// German reader never meets an English text the catalogue lacks. Read from the sources: a page
// the HTTP tests do not open is checked too.
const SOURCES = fileURLToPath(new URL('../../src/', import.meta.url));

const SAMPLE = [
  "import { html } from '@gatehouse/html';",
  "export const fragment = html` id=\"reset-form\" data-passkey=\"authenticate\"`;",
  "export const page = html`<p class=\"notice\">Hello, <strong${fragment}>${name}</strong></p><button aria-label=\"Close\" id=\"close\">${t('x')}</button><code>reset_link_invalid</code>&middot;`;",
  "export const refused = messagePage('Link not valid', t('x'), { code: 'reset_link_invalid' });",
  "redirectWithFlash(ctx, deps, '/account', { kind: 'notice', text: `We sent a link to ${email}.` });",
  "export const shown = messagePage(t('title'), t('text', { email }), { way: { label: t('way'), href: '/account' } });",
  "export const wayOn = messagePage(t('title'), t('text'), { way: { label: `Continue to ${app}`, href: '/', says: { way: 'continueTo', app } } });",
  "export const english = messagePage(t('title'), t('text'), { way: { label: 'Go on', href: '/' } });",
].join('\n');

describe('the authorization server pages take their words from the catalogue', () => {
  it('no page source writes a text of its own', () => {
    const texts = literalPageText(SOURCES, {
      // The catalogues hold the texts; the command line speaks to the operator, not to a page.
      skip: ['i18n/', 'cli/'],
      pageCalls: ['messagePage', 'redirectWithFlash', 'layout', 'frame', 'activateRestartPage'],
      // The shape of a user code, shown as the placeholder of its field.
      allowed: ['XXXX-XXXX'],
    });
    expect(texts).toEqual([]);
  });

  it('finds a text written in a template, in a shown attribute and in a page call, and not an attribute fragment, a path, a code or the English fallback of a way on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'page-sources-'));
    try {
      writeFileSync(join(dir, 'sample.ts'), SAMPLE);
      expect(literalPageText(dir, { pageCalls: ['messagePage', 'redirectWithFlash'] })).toEqual([
        { where: 'sample.ts:3', text: 'Hello,' },
        { where: 'sample.ts:3', text: 'Close' },
        { where: 'sample.ts:4', text: 'Link not valid' },
        { where: 'sample.ts:5', text: 'We sent a link to  .' },
        { where: 'sample.ts:8', text: 'Go on' },
      ]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
