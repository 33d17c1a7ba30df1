/**
 * Host-header safety: every absolute URL the API writes (`Location`, `Link` next and
 * deprecation, paging `next`, the HTML page's next link, OpenAPI `servers`, problem `type`, the
 * problem documentation) starts with API_PUBLIC_URL. A foreign `Host`, `X-Forwarded-Host`,
 * `Forwarded` or an absolute-form request target never shows up in any header or body, with
 * TRUST_PROXY off and on (the configured URL always wins; TRUST_PROXY only concerns the client
 * address).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foreignHostVariants, rawRequest, type RawResponse } from '@gatehouse/http/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const PUBLIC = 'https://api.example.com';
const FOREIGN = 'evil.example';

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(async () => {
  await issuer.close();
});

interface Endpoint {
  readonly name: string;
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: (n: number) => string;
  /** Checks the absolute URLs of the answer against the configured ones. */
  readonly check: (r: RawResponse, n: number) => void;
}

const json = (r: RawResponse): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

function endpoints(token: string): Endpoint[] {
  const auth = { authorization: `Bearer ${token}` };
  return [
    {
      name: 'POST (Location)',
      method: 'POST',
      path: '/api/v2/movies',
      headers: { ...auth, 'content-type': 'application/json' },
      body: (n) => JSON.stringify({ id: 1000 + n, title: 'x' }),
      check: (r, n) => {
        expect(r.status).toBe(201);
        expect(r.headers.location).toBe(`${PUBLIC}/api/v2/movies/${1000 + n}`);
      },
    },
    {
      name: 'a v2 page (Link next, page.next)',
      path: '/api/v2/movies?limit=1',
      headers: auth,
      check: (r) => {
        expect(r.status).toBe(200);
        expect(r.headers.link).toBe(`<${PUBLIC}/api/v2/movies?limit=1&after=1>; rel="next"`);
        expect((json(r).page as { next: string }).next).toBe(`${PUBLIC}/api/v2/movies?limit=1&after=1`);
      },
    },
    {
      name: 'a v2 page as HTML',
      path: '/api/v2/movies?limit=1',
      headers: { ...auth, accept: 'text/html' },
      check: (r) => {
        expect(r.status).toBe(200);
        expect(r.body).toContain(`<a rel="next" href="${PUBLIC}/api/v2/movies?limit=1&amp;after=1">`);
      },
    },
    {
      name: 'a deprecated version (Link rel=deprecation)',
      path: '/api/v1/movies/1',
      headers: auth,
      check: (r) => {
        expect(r.status).toBe(200);
        expect(r.headers.link).toBe(`<${PUBLIC}/api/openapi.json>; rel="deprecation"; type="application/json"`);
      },
    },
    {
      name: 'the OpenAPI document (servers)',
      path: '/api/openapi.json',
      check: (r) => {
        expect(r.status).toBe(200);
        expect(json(r).servers).toEqual([{ url: PUBLIC }]);
      },
    },
    {
      name: 'a problem document (type, WWW-Authenticate)',
      path: '/api/movies',
      check: (r) => {
        expect(r.status).toBe(401);
        expect(r.headers['www-authenticate']).toBe('Bearer realm="gatehouse-api", DPoP realm="gatehouse-api", algs="ES256 PS256 RS256 Ed25519 EdDSA"');
        expect(json(r)).toMatchObject({ type: `${PUBLIC}/problems/missing_token`, instance: '/api/movies' });
      },
    },
    {
      name: 'a problem as XML',
      path: '/nowhere',
      headers: { accept: 'application/xml' },
      check: (r) => {
        expect(r.status).toBe(404);
        expect(r.body).toContain(`<type>${PUBLIC}/problems/not_found</type>`);
      },
    },
    {
      name: 'a problem as HTML',
      path: '/api/movies/x',
      headers: { ...auth, accept: 'text/html' },
      check: (r) => {
        expect(r.status).toBe(400);
        expect(r.body).toContain(`<dd>${PUBLIC}/problems/invalid_id</dd>`);
      },
    },
    {
      name: 'the problem documentation (JSON)',
      path: '/problems/invalid_token',
      headers: { accept: 'application/json' },
      check: (r) => {
        expect(r.status).toBe(200);
        expect(json(r).type).toBe(`${PUBLIC}/problems/invalid_token`);
      },
    },
    {
      name: 'the problem index (JSON)',
      path: '/problems',
      headers: { accept: 'application/json' },
      check: (r) => {
        expect(r.status).toBe(200);
        expect((json(r).problems as { type: string }[])[0]!.type).toBe(`${PUBLIC}/problems/not_found`);
      },
    },
    { name: 'liveness', path: '/healthz', check: (r) => expect(r.status).toBe(200) },
    { name: 'readiness', path: '/readyz', check: (r) => expect(r.status).toBe(200) },
  ];
}

describe.each([
  ['off', 'false'],
  ['on', 'true'],
])('with TRUST_PROXY %s', (_label, trustProxy) => {
  let api: ApiHarness;
  let list: Endpoint[];
  beforeAll(async () => {
    api = await startApi({
      issuer: issuer.issuer,
      env: { TRUST_PROXY: trustProxy, API_PUBLIC_URL: PUBLIC },
      definition: {
        versions: [{ version: 1, deprecated: { since: '2026-06-01T00:00:00Z' } }, { version: 2 }],
        collections: [{ name: 'movies', fields: { title: { type: 'string' } } }],
      },
    });
    const token = await issuer.sign({ scope: 'movies:read movies:write' });
    for (const id of [1, 2]) {
      const r = await api.request('/api/v2/movies', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, title: 't' }) });
      expect(r.status).toBe(201);
    }
    list = endpoints(token);
  });
  afterAll(async () => {
    await api.close();
  });

  let n = 0;
  it.each(foreignHostVariants(FOREIGN))('never echoes $name; every URL is API_PUBLIC_URL', async (variant) => {
    for (const endpoint of list) {
      n += 1;
      const r = await rawRequest(api.url, {
        method: endpoint.method,
        target: variant.absoluteForm ? `http://${FOREIGN}${endpoint.path}` : endpoint.path,
        headers: { ...endpoint.headers, ...variant.headers },
        body: endpoint.body?.(n),
      });
      expect(r.headerLines.filter((line) => line.includes(FOREIGN)), endpoint.name).toEqual([]);
      expect(r.body.includes(FOREIGN), `${endpoint.name}: ${r.body.slice(0, 300)}`).toBe(false);
      endpoint.check(r, n);
    }
  });

  it('also with a plain request (the checks above are not vacuous)', async () => {
    for (const endpoint of list) {
      n += 1;
      const r = await rawRequest(api.url, { method: endpoint.method, target: endpoint.path, headers: endpoint.headers, body: endpoint.body?.(n) });
      endpoint.check(r, n);
    }
  });
});
