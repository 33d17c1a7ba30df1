/**
 * Every error status of the collection endpoints, as problem details: exact status, headers
 * and body, in each representation where it matters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemDetails } from '@gatehouse/contracts';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

let issuer: LocalIssuer;
let api: ApiHarness;
let token: string;
let readOnly: string;

const JSON_HEADERS = { 'content-type': 'application/json' };
const REALM = 'Bearer realm="gatehouse-api"';

beforeAll(async () => {
  issuer = await startLocalIssuer();
  api = await startApi({ issuer: issuer.issuer });
  token = await issuer.sign({ scope: 'movies:read movies:write cars:read' });
  readOnly = await issuer.sign({ scope: 'movies:read' });
  const seeded = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 1, title: 'Seed' }) });
  expect(seeded.status).toBe(201);
});
afterAll(async () => {
  await api.close();
  await issuer.close();
});

async function problem(r: Response): Promise<Record<string, unknown>> {
  expect(r.headers.get('content-type')).toBe('application/problem+json');
  const body = (await r.json()) as Record<string, unknown>;
  expect(ProblemDetails.safeParse(body).success).toBe(true);
  expect(body.requestId).toBe(r.headers.get('x-request-id'));
  expect(body).not.toHaveProperty('stack');
  delete body.requestId;
  return body;
}

const p = (status: number, title: string, code: string, instance: string, detail: string, extra: Record<string, unknown> = {}) => ({
  // The code's documentation page on this API (API_PUBLIC_URL is the harness's own address).
  type: `${api.url}/problems/${code}`,
  title,
  status,
  detail,
  code,
  instance,
  ...extra,
});

describe('400 Bad Request', () => {
  it('names every bad field of an item', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 'x', title: '', rating: 5 }) });
    expect(r.status).toBe(400);
    expect(await problem(r)).toEqual(
      p(400, 'Bad Request', 'validation_failed', '/api/movies', 'invalid fields: id, title, rating', {
        errors: [
          { field: 'id', message: 'must be an integer between 1 and 9007199254740991' },
          { field: 'title', message: 'must be at least 1 characters long' },
          { field: 'rating', message: 'is not a field of this collection' },
        ],
      }),
    );
  });

  it('requires id and the text field on create, and an object body', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '{}' });
    expect(await problem(r)).toMatchObject({
      status: 400,
      errors: [
        { field: 'id', message: 'is required' },
        { field: 'title', message: 'is required' },
      ],
    });
    const array = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '[{"id":2,"title":"x"}]' });
    expect(array.status).toBe(400);
    expect(await problem(array)).toMatchObject({ code: 'validation_failed', errors: [{ field: '(body)', message: 'must be a JSON object holding one item' }] });
    const long = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 2, title: 'x'.repeat(201) }) });
    expect(await problem(long)).toMatchObject({ errors: [{ field: 'title', message: 'must be at most 200 characters long' }] });
  });

  it('refuses malformed and empty JSON', async () => {
    const bad = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '{"id":' });
    expect(bad.status).toBe(400);
    expect(await problem(bad)).toEqual(p(400, 'Bad Request', 'malformed_body', '/api/movies', 'the request body is not valid JSON'));
    const empty = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: '' });
    expect(await problem(empty)).toEqual(p(400, 'Bad Request', 'malformed_body', '/api/movies', 'the request body is empty; send one item as JSON'));
  });

  it('refuses an id in the path that is not a positive integer', async () => {
    const r = await api.request('/api/movies/abc', { token });
    expect(r.status).toBe(400);
    expect(await problem(r)).toEqual(
      p(400, 'Bad Request', 'invalid_id', '/api/movies/abc', 'the item id in the path must be a positive integer', {
        errors: [{ field: 'id', message: 'must be a positive integer' }],
      }),
    );
  });

  it('refuses a PUT whose body id differs from the path', async () => {
    const r = await api.request('/api/movies/1', { method: 'PUT', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 2, title: 'x' }) });
    expect(r.status).toBe(400);
    expect(await problem(r)).toEqual(
      p(400, 'Bad Request', 'id_mismatch', '/api/movies/1', 'the id in the body (2) differs from the id in the path (1)', {
        errors: [{ field: 'id', message: 'must equal the id in the path (1)' }],
      }),
    );
    const same = await api.request('/api/movies/1', { method: 'PUT', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 1, title: 'Seed' }) });
    expect(same.status).toBe(200);
  });

  it.each([
    ['/api/v9/movies', {}, '"v9" (path)'],
    ['/rest/api/3/movies', {}, '"3" (path)'],
    ['/api/movies', { 'API-Version': 'v3' }, '"v3" (header)'],
    ['/api/movies?version=banana', {}, '"banana" (query)'],
    ['/api/movies', { accept: 'application/vnd.gatehouse.v7+json' }, '"7" (media type)'],
  ])('refuses an unknown version: %s %j', async (path, headers, named) => {
    const r = await api.request(path, { token, headers });
    expect(r.status).toBe(400);
    expect(r.headers.get('api-version')).toBeNull();
    expect(r.headers.get('vary')).toBe('Accept, API-Version');
    expect(await problem(r)).toEqual(
      p(400, 'Bad Request', 'unsupported_version', new URL(path, 'http://x').pathname, `unsupported API version ${named}; supported versions: v1, v2`, {
        supported: ['v1', 'v2'],
      }),
    );
  });

  it.each([
    ['/api/v1/movies', { 'API-Version': 'v2' }, 'v1 (path) and v2 (header)'],
    ['/api/movies?version=2', { 'API-Version': 'v1' }, 'v1 (header) and v2 (query)'],
    ['/v2/movies?version=1', {}, 'v2 (path) and v1 (query)'],
    ['/api/movies?version=1', { accept: 'application/vnd.gatehouse.v2+json' }, 'v1 (query) and v2 (media type)'],
  ])('refuses two schemes that disagree: %s %j', async (path, headers, named) => {
    const r = await api.request(path, { token, headers });
    expect(r.status).toBe(400);
    expect(await problem(r)).toMatchObject({ code: 'version_conflict', detail: `the request names two versions: ${named}` });
  });

  it('accepts schemes that agree', async () => {
    const r = await api.request('/api/v2/movies/1?version=2', { token, headers: { 'API-Version': 'v2', accept: 'application/vnd.gatehouse.v2+json' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('api-version')).toBe('v2');
    expect(await r.json()).toEqual({ id: 1, title: 'Seed' });
  });

  it.each([
    ['limit=0', [{ field: 'limit', message: 'must be an integer from 1 to 200' }]],
    ['limit=201', [{ field: 'limit', message: 'must be an integer from 1 to 200' }]],
    ['limit=ten&after=-1', [
      { field: 'limit', message: 'must be an integer from 1 to 200' },
      { field: 'after', message: 'must be the id of the last item of the previous page' },
    ]],
  ])('refuses bad paging parameters: %s', async (query, errors) => {
    const r = await api.request(`/api/movies?${query}`, { token });
    expect(r.status).toBe(400);
    expect(await problem(r)).toMatchObject({ code: 'invalid_paging', errors });
  });

  it('refuses a token in the query string, even a valid one', async () => {
    const r = await api.request(`/api/movies?access_token=${token}`, { token });
    expect(r.status).toBe(400);
    expect(r.headers.get('www-authenticate')).toBe(
      `${REALM}, error="invalid_request", error_description="access tokens are accepted only in the Authorization header"`,
    );
    expect(await problem(r)).toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a malformed Bearer credential', async () => {
    const r = await api.request('/api/movies', { headers: { authorization: 'Bearer a b' } });
    expect(r.status).toBe(400);
    expect(r.headers.get('www-authenticate')).toBe(`${REALM}, error="invalid_request", error_description="the Bearer credential is malformed"`);
  });
});

describe('401 Unauthorized', () => {
  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Basic YXBpOnNlY3JldA==' }],
    ['a token in a cookie', { cookie: `access_token=TOKEN` }],
  ])('answers %s with a bare challenge', async (_label, headers) => {
    const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('TOKEN', token)]));
    const r = await api.request('/api/movies/1', { headers: h });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(`${REALM}, DPoP realm="gatehouse-api", algs="ES256 PS256 RS256 Ed25519 EdDSA"`);
    expect(await problem(r)).toEqual(
      p(401, 'Unauthorized', 'missing_token', '/api/movies/1', 'this resource needs an access token in the Authorization header (Bearer, or DPoP with a DPoP proof)'),
    );
  });

  it('answers a bad token with invalid_token', async () => {
    const r = await api.request('/api/movies/1', { token: 'not-a-jwt' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe(`${REALM}, error="invalid_token", error_description="the access token is malformed"`);
    expect(await problem(r)).toEqual(p(401, 'Unauthorized', 'invalid_token', '/api/movies/1', 'the access token is malformed'));
  });

  it('checks the token before revealing whether a collection exists', async () => {
    const r = await api.request('/api/planets');
    expect(r.status).toBe(401);
  });
});

describe('403 Forbidden', () => {
  it('names the write scope a read-only token lacks', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token: readOnly, headers: JSON_HEADERS, body: JSON.stringify({ id: 5, title: 'x' }) });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toBe(
      `${REALM}, error="insufficient_scope", error_description="this request needs the scope movies:write", scope="movies:write"`,
    );
    expect(await problem(r)).toEqual(
      p(403, 'Forbidden', 'insufficient_scope', '/api/movies', 'this request needs the scope movies:write', { scope: 'movies:write' }),
    );
  });

  it.each([
    ['GET', '/api/cars', 'cars:read', readOnly],
    ['DELETE', '/api/movies/1', 'movies:write', readOnly],
    ['PUT', '/api/cars/1', 'cars:write', 'full'],
    ['GET', '/api/users/1', 'users:read', 'full'],
  ])('%s %s needs %s', async (method, path, scope, which) => {
    const r = await api.request(path, { method, token: which === 'full' ? token : readOnly, headers: JSON_HEADERS, body: method === 'PUT' ? '{"model":"x"}' : undefined });
    expect(r.status).toBe(403);
    expect(await problem(r)).toMatchObject({ code: 'insufficient_scope', scope });
  });
});

describe('404 Not Found', () => {
  it.each(['/nothing', '/api', '/api/movies/1/extra', '/api/movies/', '/v1', '/rest/api/v1'])('%s matches no endpoint', async (path) => {
    const r = await api.request(path, { token });
    expect(r.status).toBe(404);
    expect(await problem(r)).toEqual(p(404, 'Not Found', 'not_found', path, `nothing is served at ${path}`));
  });

  it('names an unknown collection', async () => {
    const r = await api.request('/api/v2/planets/1', { token });
    expect(r.status).toBe(404);
    expect(r.headers.get('api-version')).toBe('v2');
    expect(await problem(r)).toEqual(p(404, 'Not Found', 'collection_not_found', '/api/v2/planets/1', 'there is no collection named "planets"'));
  });

  it.each(['GET', 'PUT', 'DELETE'])('%s of an unknown item', async (method) => {
    const r = await api.request('/api/movies/424242', { method, token, headers: JSON_HEADERS, body: method === 'PUT' ? '{"title":"x"}' : undefined });
    expect(r.status).toBe(404);
    expect(await problem(r)).toEqual(p(404, 'Not Found', 'item_not_found', '/api/movies/424242', 'movies has no item with id 424242'));
  });
});

describe('405 Method Not Allowed', () => {
  it.each([
    ['PATCH', '/api/movies', 'GET, HEAD, POST'],
    ['DELETE', '/api/movies', 'GET, HEAD, POST'],
    ['PUT', '/api/v2/movies', 'GET, HEAD, POST'],
    ['POST', '/api/movies/1', 'GET, HEAD, PUT, DELETE'],
    ['PATCH', '/v1/movies/1', 'GET, HEAD, PUT, DELETE'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/api/openapi.json', 'GET, HEAD'],
  ])('%s %s → Allow: %s', async (method, path, allow) => {
    const r = await api.request(path, { method, token });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe(allow);
    expect(await problem(r)).toEqual(p(405, 'Method Not Allowed', 'method_not_allowed', path, `${method} is not allowed here; use ${allow}`));
  });
});

describe('406 Not Acceptable', () => {
  it.each(['image/png', 'application/json;q=0, text/*;q=0', 'text/plain'])('Accept: %s', async (accept) => {
    const r = await api.request('/api/movies/1', { token, headers: { accept } });
    expect(r.status).toBe(406);
    expect(r.headers.get('vary')).toBe('Accept, API-Version');
    expect(await problem(r)).toEqual(
      p(406, 'Not Acceptable', 'not_acceptable', '/api/movies/1',
        'none of the media types in Accept can be produced; available: application/json, application/xml, text/html, application/vnd.gatehouse.v1+json, application/vnd.gatehouse.v1+xml, application/vnd.gatehouse.v2+json, application/vnd.gatehouse.v2+xml'),
    );
  });
});

describe('409 Conflict', () => {
  it('refuses a second item with the same id', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body: JSON.stringify({ id: 1, title: 'Again' }) });
    expect(r.status).toBe(409);
    expect(await problem(r)).toEqual(p(409, 'Conflict', 'duplicate_id', '/api/movies', 'movies already has an item with id 1'));
    const still = await api.request('/api/v2/movies/1', { token });
    expect(await still.json()).toEqual({ id: 1, title: 'Seed' });
  });
});

describe('413 Content Too Large', () => {
  it('refuses a declared length over 1 MiB', async () => {
    const body = JSON.stringify({ id: 9, title: 'x'.repeat(1024 * 1024) });
    const r = await api.request('/api/movies', { method: 'POST', token, headers: JSON_HEADERS, body });
    expect(r.status).toBe(413);
    expect(r.headers.get('connection')).toBe('close');
    expect(await problem(r)).toEqual(p(413, 'Content Too Large', 'payload_too_large', '/api/movies', 'the request body exceeds the limit of 1048576 bytes'));
  });

  it('refuses a chunked body once it grows over the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const r = await api.request('/api/movies', { method: 'PUT', token, headers: JSON_HEADERS, body: stream, duplex: 'half' } as RequestInit);
    expect(r.status).toBe(405);
    const post = await api.request('/api/movies/1', {
      method: 'PUT',
      token,
      headers: JSON_HEADERS,
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(post.status).toBe(413);
    expect(await problem(post)).toMatchObject({ code: 'payload_too_large' });
  });
});

describe('415 Unsupported Media Type', () => {
  it.each([['text/plain'], ['application/xml'], ['application/x-www-form-urlencoded'], ['application/json; charset=latin1'], [null]])(
    'Content-Type: %s',
    async (type) => {
      const headers: Record<string, string> = type === null ? {} : { 'content-type': type };
      const r = await api.request('/api/movies', { method: 'POST', token, headers, body: type === null ? new Blob(['{"id":3,"title":"x"}']) : '{"id":3,"title":"x"}' });
      expect(r.status).toBe(415);
      expect(r.headers.get('accept-post')).toBe('application/json, application/vnd.gatehouse.v<n>+json');
      expect(await problem(r)).toEqual(
        p(415, 'Unsupported Media Type', 'unsupported_media_type', '/api/movies', 'the request body must be application/json or application/vnd.gatehouse.v<n>+json'),
      );
    },
  );

  it('accepts the vendor JSON type as a request body', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token, headers: { 'content-type': 'application/vnd.gatehouse.v2+json' }, body: '{"id":3,"title":"Vendor"}' });
    expect(r.status).toBe(201);
  });
});

describe('problem representations', () => {
  it('writes problem+xml for XML clients', async () => {
    const r = await api.request('/api/movies/777', { token, headers: { accept: 'application/xml' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/problem+xml; charset=utf-8');
    const id = r.headers.get('x-request-id');
    expect(await r.text()).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<problem xmlns="urn:ietf:rfc:7807"><type>${api.url}/problems/item_not_found</type>` +
        '<title>Not Found</title><status>404</status><detail>movies has no item with id 777</detail><code>item_not_found</code>' +
        `<instance>/api/movies/777</instance><requestId>${id}</requestId></problem>\n`,
    );
  });

  it('writes field errors as <i> elements in XML', async () => {
    const r = await api.request('/api/movies', { method: 'POST', token, headers: { ...JSON_HEADERS, accept: 'application/xml' }, body: '{"id":4}' });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('<errors><i><field>title</field><message>is required</message></i></errors>');
  });

  it('writes an escaped HTML page for browsers', async () => {
    const r = await api.request('/api/<script>', { token, headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    const html = await r.text();
    expect(html).toContain('<title>404 Not Found</title>');
    expect(html).toContain('<dd>there is no collection named &quot;&lt;script&gt;&quot;</dd>');
    expect(html).not.toContain('<script>');
  });

  it('uses problem+json when the client accepts only that', async () => {
    const r = await api.request('/api/movies/777', { token, headers: { accept: 'application/problem+json' } });
    expect(r.status).toBe(406);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('500 Internal Server Error', () => {
  it('hides the cause and quotes the request id', async () => {
    const broken = await startApi({ issuer: issuer.issuer });
    try {
      // A closed database makes the next query fail unexpectedly.
      await broken.database.close();
      const r = await broken.request('/api/movies/1', { token });
      expect(r.status).toBe(500);
      const id = r.headers.get('x-request-id');
      const text = await r.text();
      expect(text).not.toMatch(/destroyed|stack|\.ts:\d+/);
      expect(JSON.parse(text)).toEqual({
        ...p(500, 'Internal Server Error', 'server_error', '/api/movies/1', `an unexpected error occurred; quote request id ${id}`),
        type: `${broken.url}/problems/server_error`,
        requestId: id,
      });
      const ready = await broken.request('/readyz');
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'not_ready', checks: { database: 'failing', authorizationServer: 'ok', migrations: 'failing' } });
    } finally {
      await broken.close();
    }
  });
});
