import { describe, expect, it } from 'vitest';
import { escapeHtml, html, raw } from '../src/html.ts';

describe('html', () => {
  it('escapes every interpolated value, in content and attributes', () => {
    const evil = `"><script>alert('x')</script>&\``;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#96;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&#96;</p>',
    );
  });

  it('keeps trusted markup, nests templates and drops empty values', () => {
    const items = ['a<b', 'c'];
    expect(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${raw('<svg/>')}${undefined}${null}${false}`.value).toBe(
      '<ul><li>a&lt;b</li><li>c</li></ul><svg/>',
    );
    expect(escapeHtml(0)).toBe('0');
  });
});
