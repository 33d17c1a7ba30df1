/**
 * Paging, deprecated versions, proxies, request ids, OpenAPI, health, and the benchmark's
 * validation switch. Paging and the item lifecycle run on both database engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(async () => {
  await issuer.close();
});
const JSON_HEADERS = { 'content-type': 'application/json' };

describe.each(TEST_ENGINES)('paging on %s', (engine) => {
  let api: ApiHarness;
  let token: string;
  beforeAll(async () => {
    api = await startApi({ issuer: issuer.issuer, engine });
    token = await issuer.sign({ scope: 'cars:read cars:write' });
    for (const id of [5, 1, 4, 2, 3]) {
      const r = await api.request('/api/cars', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id, model: `m${id}` }) });
      expect(r.status).toBe(201);
    }
  });
  afterAll(async () => {
    await api.close();
  });

  it('walks v1 pages through Link rel="next"', async () => {
    const seen: unknown[] = [];
    let url: string | null = `${api.url}/api/cars?limit=2`;
    const links: Array<string | null> = [];
    while (url) {
      const r: Response = await api.request(url.slice(api.url.length), { token });
      expect(r.status).toBe(200);
      const link = r.headers.get('link');
      links.push(link);
      seen.push(...((await r.json()) as unknown[]));
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
    }
    expect(links).toEqual([`<${api.url}/api/cars?limit=2&after=2>; rel="next"`, `<${api.url}/api/cars?limit=2&after=4>; rel="next"`, null]);
    expect(seen).toEqual([1, 2, 3, 4, 5].map((id) => ({ id, model: `m${id}` })));
  });

  it('puts next in the v2 envelope and keeps the version scheme in the link', async () => {
    const r = await api.request('/api/cars?version=2&limit=3', { token });
    expect(r.headers.get('link')).toBe(`<${api.url}/api/cars?version=2&limit=3&after=3>; rel="next"`);
    expect(await r.json()).toEqual({
      items: [1, 2, 3].map((id) => ({ id, model: `m${id}` })),
      page: { limit: 3, next: `${api.url}/api/cars?version=2&limit=3&after=3` },
    });
    const last = await api.request('/rest/api/2/cars?limit=3&after=3', { token, headers: { accept: 'application/xml' } });
    expect(last.headers.get('link')).toBeNull();
    expect(await last.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<page collection="cars"><items><item><id>4</id><model>m4</model></item><item><id>5</id><model>m5</model></item></items><limit>3</limit><next></next></page>\n',
    );
  });

  it('uses the default limit and caps it at the maximum', async () => {
    const many = await startApi({
      issuer: issuer.issuer,
      engine,
      definition: { versions: [{ version: 1 }], paging: { defaultLimit: 2, maxLimit: 3 }, collections: [{ name: 'cars', fields: { model: { type: 'string' } } }] },
    });
    try {
      for (const id of [1, 2, 3, 4]) {
        await many.request('/api/cars', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id, model: 'x' }) });
      }
      const first = await many.request('/api/cars', { token });
      expect(((await first.json()) as unknown[]).length).toBe(2);
      expect(first.headers.get('link')).toBe(`<${many.url}/api/cars?limit=2&after=2>; rel="next"`);
      const capped = await many.request('/api/cars?limit=4', { token });
      expect(capped.status).toBe(400);
      expect(await capped.json()).toMatchObject({ errors: [{ field: 'limit', message: 'must be an integer from 1 to 3' }] });
    } finally {
      await many.close();
    }
  });
});

describe('a deprecated version', () => {
  let api: ApiHarness;
  let token: string;
  beforeAll(async () => {
    api = await startApi({
      issuer: issuer.issuer,
      definition: {
        versions: [{ version: 1, deprecated: { since: '2026-06-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', link: 'https://docs.example/api/v1' } }, { version: 2 }],
        collections: [{ name: 'movies', fields: { title: { type: 'string' } } }],
      },
    });
    token = await issuer.sign();
  });
  afterAll(async () => {
    await api.close();
  });

  it('announces Deprecation, Sunset and Link on its responses, errors included', async () => {
    for (const [path, status] of [['/api/movies', 200], ['/api/v1/movies/9', 404]] as const) {
      const r = await api.request(path, { token });
      expect(r.status).toBe(status);
      expect(r.headers.get('api-version')).toBe('v1');
      expect(r.headers.get('deprecation')).toBe('@1780272000');
      expect(r.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(r.headers.get('link')).toBe('<https://docs.example/api/v1>; rel="deprecation"; type="text/html", <https://docs.example/api/v1>; rel="sunset"; type="text/html"');
    }
  });

  it('leaves the current version alone', async () => {
    const r = await api.request('/api/v2/movies', { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('deprecation')).toBeNull();
    expect(r.headers.get('sunset')).toBeNull();
    expect(r.headers.get('link')).toBeNull();
  });

  it('lists the deprecation in the OpenAPI document', async () => {
    const doc = (await (await api.request('/api/openapi.json')).json()) as Record<string, unknown>;
    expect(doc['x-versions']).toEqual([
      { version: 'v1', deprecated: { since: '2026-06-01T00:00:00.000Z', sunset: '2027-06-01T00:00:00.000Z', link: 'https://docs.example/api/v1' } },
      { version: 'v2', deprecated: false },
    ]);
  });
});

describe('behind a proxy that removed TLS', () => {
  // The proxy forwards whatever Host the client sent: these headers must not shape any URL.
  const forwarded = { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'lb.internal:8080', ...JSON_HEADERS };

  it('builds absolute URLs from API_PUBLIC_URL with TRUST_PROXY on, whatever the forwarded headers say', async () => {
    const api = await startApi({ issuer: issuer.issuer, env: { TRUST_PROXY: 'true', API_PUBLIC_URL: 'https://api.example.com' } });
    try {
      const token = await issuer.sign();
      const created = await api.request('/api/v2/movies', { method: 'POST', token, headers: forwarded, body: '{"id":1,"title":"a"}' });
      expect(created.headers.get('location')).toBe('https://api.example.com/api/v2/movies/1');
      await api.request('/api/v2/movies', { method: 'POST', token, headers: forwarded, body: '{"id":2,"title":"b"}' });
      const list = await api.request('/api/v2/movies?limit=1', { token, headers: forwarded });
      expect(list.headers.get('link')).toBe('<https://api.example.com/api/v2/movies?limit=1&after=1>; rel="next"');
      expect(await list.json()).toEqual({ items: [{ id: 1, title: 'a' }], page: { limit: 1, next: 'https://api.example.com/api/v2/movies?limit=1&after=1' } });
      const doc = (await (await api.request('/api/openapi.json', { headers: forwarded })).json()) as { servers: unknown };
      expect(doc.servers).toEqual([{ url: 'https://api.example.com' }]);
    } finally {
      await api.close();
    }
  });

  it('ignores forwarded headers when TRUST_PROXY is off', async () => {
    const api = await startApi({ issuer: issuer.issuer });
    try {
      const created = await api.request('/api/movies', { method: 'POST', token: await issuer.sign(), headers: forwarded, body: '{"id":1,"title":"a"}' });
      expect(created.headers.get('location')).toBe(`${api.url}/api/movies/1`);
    } finally {
      await api.close();
    }
  });
});

describe('request ids, health and OpenAPI', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ issuer: issuer.issuer });
  });
  afterAll(async () => {
    await api.close();
  });

  it('keeps a well-formed incoming X-Request-Id and replaces others', async () => {
    const kept = await api.request('/api/movies', { headers: { 'x-request-id': 'gw-123:abc.def' } });
    expect(kept.headers.get('x-request-id')).toBe('gw-123:abc.def');
    expect(((await kept.json()) as { requestId: string }).requestId).toBe('gw-123:abc.def');
    const replaced = await api.request('/healthz', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('answers /healthz and /readyz without a token', async () => {
    const health = await api.request('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await api.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', authorizationServer: 'ok', migrations: 'ok' } });
  });

  it('serves an OpenAPI 3.1 document generated from the collection file', async () => {
    const r = await api.request('/api/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await r.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown; operationId?: string }>>;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { flows: { authorizationCode: { scopes: Record<string, string>; tokenUrl: string } } }> };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual([
      ...['movies', 'customers', 'cars', 'users'].flatMap((c) => ['/api', '/api/v1', '/api/v2'].flatMap((p) => [`${p}/${c}`, `${p}/${c}/{id}`])),
      '/problems',
      '/problems/{code}',
    ]);
    expect(doc.paths['/problems/{code}']!.get!.security).toEqual([]);
    expect(doc.paths['/api/v2/users/{id}']!.delete!.security).toEqual([{ bearer: ['users:write'] }]);
    expect(doc.paths['/api/v1/cars']!.get!.security).toEqual([{ bearer: ['cars:read'] }]);
    expect(doc.components.schemas['users.item']).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['id', 'username'],
      properties: {
        id: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
        username: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' },
      },
    });
    const flow = doc.components.securitySchemes.bearer!.flows.authorizationCode;
    expect(flow.tokenUrl).toBe(`${issuer.issuer}/oauth2/v1/token`);
    expect(Object.keys(flow.scopes)).toEqual(['movies:read', 'movies:write', 'customers:read', 'customers:write', 'cars:read', 'cars:write', 'users:read', 'users:write']);
  });
});

describe('token validation switched off (benchmark baseline only)', () => {
  it('serves without a token when the deps say so', async () => {
    const api = await startApi({ issuer: issuer.issuer, tokenValidation: 'off' });
    try {
      const r = await api.request('/api/movies');
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('cannot be switched off from the environment: API_TOKEN_VALIDATION is refused as no setting, TOKEN_VALIDATION is ignored', async () => {
    await expect(startApi({ issuer: issuer.issuer, env: { API_TOKEN_VALIDATION: 'off' } })).rejects.toThrow(
      'invalid setting API_TOKEN_VALIDATION: not a setting of api',
    );
    const api = await startApi({ issuer: issuer.issuer, env: { TOKEN_VALIDATION: 'off' } });
    try {
      expect((await api.request('/api/movies')).status).toBe(401);
    } finally {
      await api.close();
    }
  });
});
