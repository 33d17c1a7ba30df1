/**
 * The API's security headers on its pages, error pages included: an HTML answer (collection page,
 * 4xx or 5xx problem page) carries the page CSP, exactly; JSON answers carry no page policy; the
 * API sends no other page headers (its wire is unchanged by the shared middleware).
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
const HTML = { type: 'text/html; charset=utf-8', csp: HTML_CSP, nosniff: null, referrer: null, frame: null, cache: null };

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

  it('a JSON problem has no page policy', async () => {
    const r = await api.request('/api/nothing-here', { token });
    expect(r.status).toBe(404);
    expect(pageHeaders(r)).toEqual({ ...HTML, type: 'application/problem+json', csp: null });
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
