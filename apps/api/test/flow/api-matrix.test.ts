/**
 * The wire contract of the collection endpoints: every versioning scheme × every
 * representation × every method, on one API with a local stand-in issuer. Each case runs a
 * whole item lifecycle (POST, GET item, PUT, GET list, DELETE, GET → 404) on its own id, so the
 * list holds exactly that item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

let issuer: LocalIssuer;
let api: ApiHarness;
let token: string;

beforeAll(async () => {
  issuer = await startLocalIssuer();
  api = await startApi({ issuer: issuer.issuer });
  token = await issuer.sign({ scope: 'movies:read movies:write' });
});
afterAll(async () => {
  await api.close();
  await issuer.close();
});

type Rep = 'json' | 'xml' | 'html';
interface Scheme {
  name: string;
  /** Path of the collection, query string of a request, extra headers, for version n. */
  collection: (n: number) => string;
  query: (n: number) => string;
  headers: (n: number, rep: Rep) => Record<string, string>;
  /** Whether the scheme puts the version in the Accept header (then html cannot be asked for). */
  mediaType?: boolean;
  /** v1 only: the scheme with no version at all. */
  onlyDefault?: boolean;
}

const ACCEPT: Record<Rep, string> = { json: 'application/json', xml: 'application/xml', html: 'text/html' };

const SCHEMES: Scheme[] = [
  { name: 'no version (default v1)', collection: () => '/api/movies', query: () => '', headers: () => ({}), onlyDefault: true },
  { name: 'path /api/v<n>', collection: (n) => `/api/v${n}/movies`, query: () => '', headers: () => ({}) },
  { name: 'path /v<n>', collection: (n) => `/v${n}/movies`, query: () => '', headers: () => ({}) },
  { name: 'path /rest/api/v<n>', collection: (n) => `/rest/api/v${n}/movies`, query: () => '', headers: () => ({}) },
  { name: 'path /rest/api/<n>', collection: (n) => `/rest/api/${n}/movies`, query: () => '', headers: () => ({}) },
  { name: 'header API-Version', collection: () => '/api/movies', query: () => '', headers: (n) => ({ 'API-Version': `v${n}` }) },
  { name: 'query ?version', collection: () => '/api/movies', query: (n) => `version=${n}`, headers: () => ({}) },
  {
    name: 'media type',
    collection: () => '/api/movies',
    query: () => '',
    headers: (n, rep) => ({ accept: `application/vnd.gatehouse.v${n}+${rep}` }),
    mediaType: true,
  },
];

const REPS: Rep[] = ['json', 'xml', 'html'];
const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';

function contentType(rep: Rep, n: number, scheme: Scheme): string {
  if (rep === 'html') return 'text/html; charset=utf-8';
  if (scheme.mediaType) return rep === 'json' ? `application/vnd.gatehouse.v${n}+json` : `application/vnd.gatehouse.v${n}+xml; charset=utf-8`;
  return rep === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8';
}

const xmlItem = (id: number, title: string, attrs = '') => `<item${attrs}><id>${id}</id><title>${title}</title></item>`;
const htmlRow = (id: number, title: string) => `<tr><td>${id}</td><td>${title}</td></tr>`;

function expectItemBody(rep: Rep, text: string, id: number, title: string, asArray: boolean): void {
  if (rep === 'json') expect(JSON.parse(text)).toEqual(asArray ? [{ id, title }] : { id, title });
  else if (rep === 'xml') {
    expect(text).toBe(asArray ? `${XML_DECL}<items collection="movies">${xmlItem(id, title)}</items>\n` : `${XML_DECL}${xmlItem(id, title, ' collection="movies"')}\n`);
  } else {
    expect(text).toContain(`<title>movies${asArray ? '' : ` ${id}`}</title>`);
    expect(text).toContain(`<thead><tr><th scope="col">id</th><th scope="col">title</th></tr></thead><tbody>${htmlRow(id, title)}</tbody>`);
  }
}

function expectCommonHeaders(r: Response, rep: Rep, n: number, scheme: Scheme): void {
  expect(r.headers.get('api-version')).toBe(`v${n}`);
  expect(r.headers.get('vary')).toBe('Accept, API-Version');
  expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  if (r.status !== 204) expect(r.headers.get('content-type')).toBe(contentType(rep, n, scheme));
  expect(r.headers.get('content-security-policy') !== null).toBe(rep === 'html' && r.status !== 204);
  expect(r.headers.get('deprecation')).toBeNull();
}

let nextId = 1000;

describe('version scheme × representation × method', () => {
  const cases = SCHEMES.flatMap((scheme) =>
    (scheme.onlyDefault ? [1] : [1, 2]).flatMap((n) =>
      REPS.filter((rep) => !(scheme.mediaType && rep === 'html')).map((rep) => ({ scheme, n, rep, label: `${scheme.name} · v${n} · ${rep}` })),
    ),
  );

  it('covers 8 schemes, 2 versions and 3 representations', () => {
    expect(cases.length).toBe(3 + 6 * 2 * 3 + 2 * 2);
  });

  it.each(cases)('$label', async ({ scheme, n, rep }) => {
    const id = nextId++;
    const base = scheme.collection(n);
    const q = scheme.query(n);
    const qs = q ? `?${q}` : '';
    const headers = { accept: ACCEPT[rep], ...scheme.headers(n, rep) };

    // POST → 201, Location in the same scheme, the stored item as an object.
    const created = await api.request(`${base}${qs}`, {
      method: 'POST',
      token,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ id, title: 'Alien' }),
    });
    expect(created.status).toBe(201);
    expectCommonHeaders(created, rep, n, scheme);
    expect(created.headers.get('location')).toBe(`${api.url}${base}/${id}${qs}`);
    expectItemBody(rep, await created.text(), id, 'Alien', false);

    // GET item → v1 an array holding the item, v2 the item.
    const read = await api.request(`${base}/${id}${qs}`, { token, headers });
    expect(read.status).toBe(200);
    expectCommonHeaders(read, rep, n, scheme);
    expectItemBody(rep, await read.text(), id, 'Alien', n === 1);

    // PUT → 200 with the replaced item (id in the body optional).
    const replaced = await api.request(`${base}/${id}${qs}`, {
      method: 'PUT',
      token,
      headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ title: 'Aliens & <Co>' }),
    });
    expect(replaced.status).toBe(200);
    expectCommonHeaders(replaced, rep, n, scheme);
    const escaped = rep === 'json' ? 'Aliens & <Co>' : 'Aliens &amp; &lt;Co&gt;';
    const text = await replaced.text();
    if (rep === 'json') expect(JSON.parse(text)).toEqual({ id, title: 'Aliens & <Co>' });
    else expectItemBody(rep, text, id, escaped, false);

    // GET list (the page starting at this id) → v1 array, v2 envelope.
    const listQuery = `${q ? `${q}&` : ''}after=${id - 1}&limit=5`;
    const list = await api.request(`${base}?${listQuery}`, { token, headers });
    expect(list.status).toBe(200);
    expectCommonHeaders(list, rep, n, scheme);
    expect(list.headers.get('link')).toBeNull();
    const listText = await list.text();
    if (rep === 'json') {
      const items = [{ id, title: 'Aliens & <Co>' }];
      expect(JSON.parse(listText)).toEqual(n === 1 ? items : { items, page: { limit: 5, next: null } });
    } else if (rep === 'xml') {
      const inner = xmlItem(id, escaped);
      expect(listText).toBe(
        n === 1
          ? `${XML_DECL}<items collection="movies">${inner}</items>\n`
          : `${XML_DECL}<page collection="movies"><items>${inner}</items><limit>5</limit><next></next></page>\n`,
      );
    } else {
      expect(listText).toContain(`<tbody>${htmlRow(id, escaped)}</tbody>`);
    }

    // HEAD → the GET headers, no body.
    const head = await api.request(`${base}/${id}${qs}`, { method: 'HEAD', token, headers });
    expect(head.status).toBe(200);
    expectCommonHeaders(head, rep, n, scheme);
    expect(await head.text()).toBe('');

    // DELETE → 204, then the item is gone.
    const removed = await api.request(`${base}/${id}${qs}`, { method: 'DELETE', token, headers });
    expect(removed.status).toBe(204);
    expectCommonHeaders(removed, rep, n, scheme);
    expect(await removed.text()).toBe('');
    const gone = await api.request(`${base}/${id}${qs}`, { token, headers });
    expect(gone.status).toBe(404);
    expect(gone.headers.get('api-version')).toBe(`v${n}`);
    expect(gone.headers.get('content-type')).toBe(
      rep === 'json' ? 'application/problem+json' : rep === 'xml' ? 'application/problem+xml; charset=utf-8' : 'text/html; charset=utf-8',
    );
    const goneText = await gone.text();
    if (rep === 'json') expect(JSON.parse(goneText)).toMatchObject({ status: 404, code: 'item_not_found', detail: `movies has no item with id ${id}` });
    else if (rep === 'xml') expect(goneText).toContain(`<status>404</status><detail>movies has no item with id ${id}</detail><code>item_not_found</code>`);
    else expect(goneText).toContain('<title>404 Not Found</title>');
  });
});
