/**
 * The documentation problem `type` URIs point at: every code of the ApiError union has a page,
 * the `type` of real errors resolves to it over HTTP, unknown codes are 404 problems.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/api-error.ts';
import { PROBLEM_CATALOG } from '../../src/errors/problem-catalog.ts';
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

/** GETs a problem's `type` URI as a plain HTTP client would, and returns the page. */
async function resolve(type: string, accept = 'text/html'): Promise<Response> {
  expect(type.startsWith(`${api.url}/problems/`)).toBe(true);
  return fetch(type, { headers: { accept } });
}

describe('GET /problems/<code>', () => {
  it('has a page for every code of the union, in HTML and in JSON', async () => {
    expect(Object.keys(PROBLEM_CATALOG).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      const description = PROBLEM_CATALOG[code];
      const html = await api.request(`/problems/${code}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(html.status, code).toBe(200);
      expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(html.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/);
      const page = await html.text();
      expect(page).toContain(`<title>Problem: ${code}</title>`);
      expect(page).toContain(`<dd>${description.status} ${description.title}</dd>`);
      expect(description.meaning.length).toBeGreaterThan(20);
      expect(description.action.length).toBeGreaterThan(20);

      const json = await api.request(`/problems/${code}`, { headers: { accept: 'application/json' } });
      expect(json.status, code).toBe(200);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await json.json()).toEqual({ type: `${api.url}/problems/${code}`, code, ...description });
    }
  });

  it('answers HTML when the client does not say (no Accept, */*), and HEAD without a body', async () => {
    for (const accept of [undefined, '*/*', 'text/*', 'application/json;q=0.5, text/html;q=0.5']) {
      const r = await api.request('/problems/invalid_token', accept === undefined ? {} : { headers: { accept } });
      expect(r.status, String(accept)).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(r.headers.get('vary')).toBe('Accept');
    }
    const head = await api.request('/problems/invalid_token', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('lists the codes at /problems', async () => {
    const r = await api.request('/problems', { headers: { accept: 'application/json' } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { problems: { code: string; type: string }[] };
    expect(body.problems.map((p) => p.code)).toEqual([...ERROR_CODES]);
    expect(body.problems[0]).toEqual({ code: 'not_found', status: 404, title: 'Not Found', type: `${api.url}/problems/not_found` });
    const page = await (await api.request('/problems')).text();
    for (const code of ERROR_CODES) expect(page).toContain(`<a href="/problems/${code}">${code}</a>`);
  });

  it('answers an unknown code, an inherited property name and a nested path with a 404 problem', async () => {
    for (const path of ['/problems/no_such_code', '/problems/constructor', '/problems/__proto__', '/problems/not_found/x', '/problems/%E2%80%8B']) {
      const r = await api.request(path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await r.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({
        type: `${api.url}/problems/not_found`,
        status: 404,
        code: 'not_found',
        instance: path,
        detail: path.endsWith('/x') ? `nothing is served at ${path}` : 'no problem type of this API has that code; GET /problems lists them',
      });
    }
  });

  it('refuses other methods (405 with Allow) and unacceptable types (406)', async () => {
    const post = await api.request('/problems/not_found', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({ code: 'method_not_allowed', type: `${api.url}/problems/method_not_allowed` });
    const xml = await api.request('/problems/not_found', { headers: { accept: 'application/xml' } });
    expect(xml.status).toBe(406);
    expect(await xml.text()).toContain('<code>not_acceptable</code>');
  });

  it('needs no token', async () => {
    const r = await api.request('/problems/missing_token', { headers: { authorization: 'Bearer not-a-token' } });
    expect(r.status).toBe(200);
  });
});

describe('the type of a problem document resolves to its page', () => {
  it.each([
    ['missing_token', () => api.request('/api/movies')],
    ['invalid_token', () => api.request('/api/movies', { token: 'not-a-jwt' })],
    ['collection_not_found', () => api.request('/api/nothing', { token })],
    ['item_not_found', () => api.request('/api/movies/404', { token })],
    ['validation_failed', () => api.request('/api/movies', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: '{}' })],
    ['unsupported_version', () => api.request('/api/v9/movies', { token })],
    ['not_found', () => api.request('/nowhere')],
  ] as const)('%s', async (code, send) => {
    const r = await send();
    const problem = (await r.json()) as { type: string; code: string; status: number };
    expect(problem.code).toBe(code);
    expect(problem.type).toBe(`${api.url}/problems/${code}`);
    const page = await resolve(problem.type);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain(`<title>Problem: ${code}</title>`);
    expect(text).toContain(PROBLEM_CATALOG[code].meaning);
    expect(PROBLEM_CATALOG[code].status).toBe(problem.status);
    const described = (await (await resolve(problem.type, 'application/json')).json()) as { code: string; status: number };
    expect(described).toMatchObject({ code, status: problem.status });
  });
});
