/**
 * The pre-routed item read (src/items/fast-read.ts):
 * - it answers exactly as the ordinary Koa path does: status, headers in order, body, the request
 *   line and the request metrics, compared between an API with it and one without, on both engines;
 * - it takes only what it can answer with a 200 the same way, and hands everything else over.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createLogger } from '@gatehouse/logging';
import { createMetricsRegistry, httpMetricsRecorder, type Registry } from '@gatehouse/metrics';
import type { Kysely } from 'kysely';
import { parseApiDefinition } from '../../src/collections/collection-config.ts';
import { fastItemRead } from '../../src/items/fast-read.ts';
import { apiRouteName } from '../../src/metrics/route-name.ts';
import { createItemStore } from '../../src/storage/item-store.ts';
import type { ApiSchema } from '../../src/storage/schema.ts';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const COLLECTIONS = {
  collections: [
    { name: 'movies', fields: { title: { type: 'string' } } },
    { name: 'cars', fields: { model: { type: 'string' } } },
  ],
};
const DEFINITION = { versions: [{ version: 1 }, { version: 2 }], ...COLLECTIONS };
/** v2 deprecated: its answers carry Deprecation, Sunset and Link, which only the ordinary path writes. */
const DEPRECATING = { versions: [{ version: 1 }, { version: 2, deprecated: { since: '2026-06-01T00:00:00Z', sunset: '2027-06-01T00:00:00Z', link: 'https://docs.example/api/v2' } }], ...COLLECTIONS };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(async () => {
  await issuer.close();
});

interface Captured {
  readonly api: ApiHarness;
  readonly lines: Record<string, unknown>[];
  readonly registry: Registry;
}

async function start(engine: (typeof TEST_ENGINES)[number], fastItemReads: boolean): Promise<Captured> {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const registry = createMetricsRegistry({ processMetrics: false });
  const api = await startApi({
    issuer: issuer.issuer,
    engine,
    definition: DEFINITION,
    fastItemReads,
    metrics: registry,
    logger: createLogger({ name: 'api', level: 'debug', destination }),
  });
  const writer = await issuer.sign({ scope: 'movies:write' });
  for (const [id, title] of [
    [1, 'Alien'],
    [2, 'Brazil <&> "quoted"'],
  ] as const) {
    const r = await api.request('/api/movies', { method: 'POST', token: writer, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, title }) });
    expect(r.status).toBe(201);
  }
  lines.length = 0;
  return { api, lines, registry };
}

/** One answer, with what differs by nature between two servers (Date, a generated request id, ports) made neutral. */
async function observe(api: ApiHarness, path: string, headers: Record<string, string>): Promise<{ status: number; headers: string[]; body: string }> {
  const url = new URL(path, api.url);
  const response = await new Promise<{ status: number; raw: string[]; body: string }>((resolve, reject) => {
    request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, raw: res.rawHeaders, body }));
    })
      .on('error', reject)
      .end();
  });
  const pairs: string[] = [];
  for (let i = 0; i < response.raw.length; i += 2) {
    const [name, value] = [response.raw[i]!, response.raw[i + 1]!];
    if (name.toLowerCase() === 'date') continue;
    const generated = name.toLowerCase() === 'x-request-id' && value !== headers['x-request-id'] && UUID.test(value);
    const neutral = generated ? '<uuid>' : value;
    pairs.push(`${name}: ${neutral.replaceAll(api.url, '<api>')}`);
  }
  // Problem bodies name the request id too.
  return { status: response.status, headers: pairs, body: response.body.replaceAll(api.url, '<api>').replace(new RegExp(UUID.source.slice(1, -1), 'g'), '<uuid>') };
}

function neutralLines(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.map(({ time: _time, pid: _pid, hostname: _hostname, duration_ms: duration, request_id: id, ...rest }) => ({
    ...rest,
    duration_ms: typeof duration,
    request_id: typeof id === 'string' && UUID.test(id) ? '<uuid>' : id,
  }));
}

describe.each(TEST_ENGINES)('the pre-routed item read on %s', (engine) => {
  let fast: Captured;
  let plain: Captured;
  let reader: string;
  let carsOnly: string;
  beforeAll(async () => {
    [fast, plain] = await Promise.all([start(engine, true), start(engine, false)]);
    reader = await issuer.sign({ scope: 'movies:read', sub: 'alice', client_id: 'app-one' });
    carsOnly = await issuer.sign({ scope: 'cars:read' });
  });
  afterAll(async () => {
    await Promise.all([fast.api.close(), plain.api.close()]);
  });

  // What clients send: the common read, every version scheme, the vendor media types, a request id,
  // and the answers the fast path leaves to Koa (404, 400, 401, 403, 406, XML, HTML, deprecated, query).
  const cases = (): Array<[string, string, Record<string, string>]> => [
    ['the common read', '/api/movies/1', { authorization: `Bearer ${reader}` }],
    ['v1 in the path', '/api/v1/movies/2', { authorization: `Bearer ${reader}` }],
    ['v2 in the short path', '/v2/movies/2', { authorization: `Bearer ${reader}` }],
    ['v2 in the rest path', '/rest/api/2/movies/1', { authorization: `Bearer ${reader}` }],
    ['v2 by header', '/api/movies/1', { authorization: `Bearer ${reader}`, 'api-version': 'v2' }],
    ['v2 by media type', '/api/movies/1', { authorization: `Bearer ${reader}`, accept: 'application/vnd.gatehouse.v2+json' }],
    ['JSON among others', '/api/movies/1', { authorization: `bearer ${reader}`, accept: 'text/html;q=0.5, application/json' }],
    ['a request id kept', '/api/movies/1', { authorization: `Bearer ${reader}`, 'x-request-id': 'edge-42.a' }],
    ['a request id replaced', '/api/movies/1', { authorization: `Bearer ${reader}`, 'x-request-id': 'bad id!' }],
    ['an unknown item', '/api/movies/99', { authorization: `Bearer ${reader}` }],
    ['an invalid id', '/api/movies/x1', { authorization: `Bearer ${reader}` }],
    ['an unknown collection', '/api/boats/1', { authorization: `Bearer ${reader}` }],
    ['versions that disagree', '/api/v1/movies/1', { authorization: `Bearer ${reader}`, 'api-version': 'v2' }],
    ['an unknown version', '/api/movies/1', { authorization: `Bearer ${reader}`, 'api-version': 'v9' }],
    ['XML', '/api/movies/2', { authorization: `Bearer ${reader}`, accept: 'application/xml' }],
    ['HTML', '/api/movies/2', { authorization: `Bearer ${reader}`, accept: 'text/html' }],
    ['nothing acceptable', '/api/movies/1', { authorization: `Bearer ${reader}`, accept: 'image/png' }],
    ['a query string', '/api/movies/1?version=2', { authorization: `Bearer ${reader}` }],
    ['the wrong scope', '/api/movies/1', { authorization: `Bearer ${carsOnly}` }],
    ['no token', '/api/movies/1', {}],
    ['a malformed credential', '/api/movies/1', { authorization: 'Bearer a b' }],
    ['a forged token', '/api/movies/1', { authorization: `Bearer ${reader.slice(0, -4)}AAAA` }],
  ];

  it('answers every request exactly as the Koa path does, twice over (the second time from the verified-token cache)', async () => {
    for (const round of [1, 2]) {
      for (const [name, path, headers] of cases()) {
        const [a, b] = [await observe(fast.api, path, headers), await observe(plain.api, path, headers)];
        expect({ round, name, ...a }).toEqual({ round, name, ...b });
      }
    }
    const common = { authorization: `Bearer ${reader}` };
    const [taken, ordinary] = [await observe(fast.api, '/api/movies/1', common), await observe(plain.api, '/api/movies/1', common)];
    expect(taken).toEqual(ordinary);
    expect(taken.headers).toEqual([
      'X-Request-Id: <uuid>',
      'Vary: Accept, API-Version',
      'API-Version: v1',
      'Content-Type: application/json; charset=utf-8',
      'Content-Length: 26',
      'X-Content-Type-Options: nosniff',
      'Referrer-Policy: no-referrer',
      'X-Frame-Options: DENY',
      'Connection: keep-alive',
      'Keep-Alive: timeout=5',
    ]);
  });

  it('writes the same request lines and request metrics', async () => {
    fast.lines.length = 0;
    plain.lines.length = 0;
    for (const [, path, headers] of cases()) {
      await observe(fast.api, path, headers);
      await observe(plain.api, path, headers);
    }
    expect(neutralLines(fast.lines)).toEqual(neutralLines(plain.lines));
    expect(neutralLines(fast.lines).find((l) => l.event === 'http_request' && l.path === '/v2/movies/2')).toEqual({
      level: 30,
      name: 'api',
      event: 'http_request',
      request_id: '<uuid>',
      method: 'GET',
      path: '/v2/movies/2',
      status: 200,
      duration_ms: 'number',
      version: 'v2',
      representation: 'json',
      client_id: 'app-one',
      subject: 'alice',
      msg: 'request',
    });
    const series = async (registry: Registry) => (await registry.getSingleMetricAsString('http_requests_total')).split('\n').sort();
    expect(await series(fast.registry)).toEqual(await series(plain.registry));
    // Three passes over the cases (two in the test before, one here) and the one extra read there; the two seeding POSTs.
    expect((await series(fast.registry)).filter((line) => line.startsWith('http_requests_total{'))).toEqual([
      'http_requests_total{method="GET",route="/:version/:collection/:id",status="200"} 3',
      'http_requests_total{method="GET",route="/api/:collection/:id",status="200"} 28',
      'http_requests_total{method="GET",route="/api/:collection/:id",status="400"} 9',
      'http_requests_total{method="GET",route="/api/:collection/:id",status="401"} 6',
      'http_requests_total{method="GET",route="/api/:collection/:id",status="403"} 3',
      'http_requests_total{method="GET",route="/api/:collection/:id",status="404"} 6',
      'http_requests_total{method="GET",route="/api/:collection/:id",status="406"} 3',
      'http_requests_total{method="GET",route="/api/:version/:collection/:id",status="200"} 3',
      'http_requests_total{method="GET",route="/api/:version/:collection/:id",status="400"} 3',
      'http_requests_total{method="GET",route="/rest/api/:version/:collection/:id",status="200"} 3',
      'http_requests_total{method="POST",route="/api/:collection",status="201"} 2',
    ]);
  });

  it("the server's listener (handler()) puts the pre-routed path in front of Koa's chain; Koa's callback() is the chain alone", async () => {
    const throughKoa: string[] = [];
    fast.api.app.middleware.unshift(async (ctx, next) => {
      throughKoa.push(ctx.path);
      await next();
    });
    try {
      for (const listener of [fast.api.app.handler(), fast.api.app.callback()]) {
        const server = createServer(listener);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        try {
          const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/movies/1`, { headers: { authorization: `Bearer ${reader}` } });
          expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: [{ id: 1, title: 'Alien' }] });
        } finally {
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        }
      }
    } finally {
      fast.api.app.middleware.shift();
    }
    expect(throughKoa).toEqual(['/api/movies/1']);
  });
});

describe('what the pre-routed path takes and what it hands over', () => {
  let api: ApiHarness;
  let server: Server;
  let url: string;
  let reader: string;
  const handedOver: string[] = [];
  beforeAll(async () => {
    api = await startApi({ issuer: issuer.issuer, definition: DEPRECATING });
    const writer = await issuer.sign({ scope: 'movies:write' });
    const created = await api.request('/api/movies', { method: 'POST', token: writer, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 1, title: 'Alien' }) });
    expect(created.status).toBe(201);
    reader = await issuer.sign({ scope: 'movies:read' });
    // The real authenticator of the app: a token is known once the app has verified it.
    const handler = fastItemRead(
      {
        definition: parseApiDefinition(DEPRECATING),
        store: createItemStore(api.database.db as Kysely<ApiSchema>),
        authenticator: api.app.authenticator,
        realm: api.config.realm,
        logger: createLogger({ name: 'api', level: 'silent' }),
        clock: Date.now,
        metrics: httpMetricsRecorder(createMetricsRegistry({ processMetrics: false })),
        routeName: apiRouteName,
      },
      (req, res) => {
        handedOver.push(`${req.method} ${req.url}`);
        res.writeHead(599).end();
      },
    );
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await api.close();
  });

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${reader}`, ...headers } });

  it('hands over a token it has not seen verified, and takes it once the app verified it', async () => {
    handedOver.length = 0;
    expect((await get('/api/movies/1')).status).toBe(599);
    expect((await api.request('/api/movies/1', { token: reader })).status).toBe(200);
    const taken = await get('/api/movies/1');
    expect(taken.status).toBe(200);
    expect(await taken.json()).toEqual([{ id: 1, title: 'Alien' }]);
    expect(handedOver).toEqual(['GET /api/movies/1']);
  });

  it.each([
    ['an unknown item', '/api/movies/2', {}, 'GET'],
    ['an invalid id', '/api/movies/0', {}, 'GET'],
    ['a collection path', '/api/movies', {}, 'GET'],
    ['an unknown collection', '/api/boats/1', {}, 'GET'],
    ['a deprecated version', '/api/v2/movies/1', {}, 'GET'],
    ['a deprecated version by media type', '/api/movies/1', { accept: 'application/vnd.gatehouse.v2+json' }, 'GET'],
    ['a version conflict', '/api/v1/movies/1', { 'api-version': '2' }, 'GET'],
    ['XML', '/api/movies/1', { accept: 'application/xml' }, 'GET'],
    ['a query string', '/api/movies/1?limit=1', {}, 'GET'],
    ['HEAD', '/api/movies/1', {}, 'HEAD'],
    ['DELETE', '/api/movies/1', {}, 'DELETE'],
    ['another scheme', '/api/movies/1', { authorization: 'Basic YTpi' }, 'GET'],
    ['the health check', '/healthz', {}, 'GET'],
  ])('hands over %s', async (_name, path, headers, method) => {
    handedOver.length = 0;
    expect((await get(path, headers, method)).status).toBe(599);
    expect(handedOver).toEqual([`${method} ${path}`]);
  });

  it('hands over a token without the collection read scope', async () => {
    const carsOnly = await issuer.sign({ scope: 'cars:read' });
    expect((await api.request('/api/cars/1', { token: carsOnly })).status).toBe(404);
    handedOver.length = 0;
    expect((await get('/api/movies/1', { authorization: `Bearer ${carsOnly}` })).status).toBe(599);
    expect(handedOver).toEqual(['GET /api/movies/1']);
  });
});
