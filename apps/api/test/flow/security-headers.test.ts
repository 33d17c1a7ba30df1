/**
 * The API's security headers, error answers included: every answer carries nosniff, DENY and
 * no-referrer (docs/security.md, ASVS 4.0.3 V14.4 and V13); an HTML answer (collection page,
 * 4xx or 5xx problem page) also carries the page CSP, exactly; JSON and XML answers carry no
 * page policy; nothing sets Cache-Control here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTML_CSP } from '../../src/representations/html.ts';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

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

const pageHeaders = (r: Response) => ({
  type: r.headers.get('content-type'),
  csp: r.headers.get('content-security-policy'),
  nosniff: r.headers.get('x-content-type-options'),
  referrer: r.headers.get('referrer-policy'),
  frame: r.headers.get('x-frame-options'),
  cache: r.headers.get('cache-control'),
});
const HTML = { type: 'text/html; charset=utf-8', csp: HTML_CSP, nosniff: 'nosniff', referrer: 'no-referrer', frame: 'DENY', cache: null };
const JSON_ANSWER = { ...HTML, type: 'application/json; charset=utf-8', csp: null };

describe('security headers', () => {
  it('the page CSP is the one the pages are built for', () => {
    expect(HTML_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
  });

  it('a collection page has it', async () => {
    const r = await api.request('/api/movies', { token, headers: BROWSER });
    expect(r.status).toBe(200);
    expect(pageHeaders(r)).toEqual(HTML);
  });

  it('a 4xx problem page has it (401 without a token, 404 for an unknown collection)', async () => {
    const unauthenticated = await api.request('/api/movies', { headers: BROWSER });
    expect(unauthenticated.status).toBe(401);
    expect(pageHeaders(unauthenticated)).toEqual(HTML);
    const missing = await api.request('/api/nothing-here', { token, headers: BROWSER });
    expect(missing.status).toBe(404);
    expect(pageHeaders(missing)).toEqual(HTML);
  });

  it('a JSON problem has no page policy, but nosniff, DENY and no-referrer', async () => {
    const r = await api.request('/api/nothing-here', { token });
    expect(r.status).toBe(404);
    expect(pageHeaders(r)).toEqual({ ...JSON_ANSWER, type: 'application/problem+json' });
  });

  it('a JSON collection, an XML answer, a 401 without a token and a 204 carry nosniff, DENY and no-referrer', async () => {
    const list = await api.request('/api/movies', { token });
    expect(list.status).toBe(200);
    expect(pageHeaders(list)).toEqual(JSON_ANSWER);
    const xml = await api.request('/api/movies', { token, headers: { accept: 'application/xml' } });
    expect(xml.status).toBe(200);
    expect(pageHeaders(xml)).toEqual({ ...JSON_ANSWER, type: 'application/xml; charset=utf-8' });
    const anonymous = await api.request('/api/movies');
    expect(anonymous.status).toBe(401);
    expect(pageHeaders(anonymous)).toEqual({ ...JSON_ANSWER, type: 'application/problem+json' });
    const created = await api.request('/api/movies', { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 4242, title: 'Headers' }) });
    expect(created.status).toBe(201);
    const removed = await api.request('/api/movies/4242', { token, method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(pageHeaders(removed)).toEqual({ ...JSON_ANSWER, type: null });
  });

  it('a 5xx problem page has it (an unexpected failure: the database was closed under the app)', async () => {
    const broken = await startApi({ issuer: issuer.issuer });
    try {
      await broken.database.close();
      const r = await broken.request('/api/movies/1', { token, headers: BROWSER });
      expect(r.status).toBe(500);
      const html = await r.text();
      expect(html).toContain('server_error');
      expect(html).not.toMatch(/destroyed|stack|\.ts:\d+/);
      expect(pageHeaders(r)).toEqual(HTML);
    } finally {
      await broken.close();
    }
  });
});
