import { describe, expect, it } from 'vitest';
import { escapeXml, problemToXml, viewToXml } from '../../src/representations/xml.ts';
import { escapeHtml, viewToHtml } from '../../src/representations/html.ts';

describe('XML writer', () => {
  it('escapes markup and drops characters XML cannot carry', () => {
    expect(escapeXml(`<a href="x">&'\u0000\u0008ok\u{1F600}`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;ok\u{1F600}');
  });

  it('writes the documented element shapes', () => {
    const items = [{ id: 1, title: 'A & B' }, { id: 2, title: '<i>' }];
    expect(viewToXml({ kind: 'items', collection: 'movies', items })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<items collection="movies"><item><id>1</id><title>A &amp; B</title></item><item><id>2</id><title>&lt;i&gt;</title></item></items>\n',
    );
    expect(viewToXml({ kind: 'page', collection: 'movies', items: [], limit: 2, next: 'http://h/api/v2/movies?limit=2&after=2' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<page collection="movies"><items></items><limit>2</limit><next>http://h/api/v2/movies?limit=2&amp;after=2</next></page>\n',
    );
    expect(problemToXml({ type: 't', status: 400, errors: [{ field: 'a', message: 'm' }], supported: ['v1'] })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807"><type>t</type><status>400</status><errors><i><field>a</field><message>m</message></i></errors><supported><i>v1</i></supported></problem>\n',
    );
  });
});

describe('HTML page', () => {
  it('escapes every value', () => {
    expect(escapeHtml(`<script>"'&`)).toBe('&lt;script&gt;&quot;&#39;&amp;');
    const html = viewToHtml({ kind: 'page', collection: 'movies', items: [{ id: 1, title: '<script>alert(1)</script>' }], limit: 1, next: 'http://h/x?a=1&b="2"' }, ['id', 'title']);
    expect(html).toContain('<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(html).toContain('<a rel="next" href="http://h/x?a=1&amp;b=&quot;2&quot;">Next page</a>');
    expect(html).not.toContain('<script>');
  });
});
