/**
 * Every route of the resource server, driven with random and hostile requests over real
 * HTTP (createApp on SQLite, a local issuer signing real RS256 tokens). Invariants (@gatehouse/fuzz):
 * no 5xx, no stack trace or internal path, every 4xx an RFC 9457 problem (JSON, XML or the HTML
 * page) or Node's parser rejection, no stored item changed by a refused request, and the API
 * still answers /healthz afterwards. Without TRUST_PROXY, no X-Forwarded-* value may show up in a
 * Location or Link header. Seed and run counts: FUZZ_SEED / FUZZ_RUNS (see packages/fuzz/README.md).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  anyShape,
  fc,
  fuzzRequest,
  fuzzSettings,
  htmlErrorPage,
  parserRejection,
  problemJson,
  problemXml,
  runFuzz,
  type FuzzResponse,
  type FuzzTarget,
  type RouteSpec,
} from '@gatehouse/fuzz';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const COMMAND = 'pnpm --filter @gatehouse/api exec vitest run test/fuzz/api-fuzz.test.ts';
const COLLECTIONS = ['movies', 'customers', 'cars', 'users', 'nope', 'openapi.json'];
const IDS = ['1', '2', '3', '7', '9007199254740991', '9007199254740992', '0', '01'];
const ITEM_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'];
const LIST_METHODS = ['GET', 'HEAD', 'POST'];
const PAGING = ['limit', 'after', 'version', 'access_token'];

const params = { resource: COLLECTIONS, id: IDS, version: ['v1', 'v2', '1', '2', 'v3', 'V1'] };
const routes: RouteSpec[] = [
  { path: '/healthz', methods: ['GET', 'HEAD'] },
  { path: '/readyz', methods: ['GET', 'HEAD'] },
  { path: '/api/openapi.json', methods: ['GET', 'HEAD'] },
  { path: '/problems', methods: ['GET', 'HEAD'] },
  { path: '/problems/:code', methods: ['GET', 'HEAD', 'POST'], params: { code: ['not_found', 'invalid_token', 'server_error', 'constructor', '__proto__', 'nope'] } },
  { path: '/api/:resource', methods: LIST_METHODS, params, query: PAGING },
  { path: '/api/:resource/:id', methods: ITEM_METHODS, params, query: PAGING },
  { path: '/api/:version/:resource', methods: LIST_METHODS, params, query: PAGING },
  { path: '/api/:version/:resource/:id', methods: ITEM_METHODS, params, query: PAGING },
  { path: '/:version/:resource', methods: LIST_METHODS, params, query: PAGING },
  { path: '/:version/:resource/:id', methods: ITEM_METHODS, params, query: PAGING },
  { path: '/rest/api/:version/:resource', methods: LIST_METHODS, params, query: PAGING },
  { path: '/rest/api/:version/:resource/:id', methods: ITEM_METHODS, params, query: PAGING },
];
const ACCEPT = ['application/json', 'application/xml', 'text/html', 'application/vnd.gatehouse.v2+json', 'application/vnd.gatehouse.v2+xml'];

/** Plausible items of a collection (its one field), sometimes with an id, a wrong type or a value out of bounds. */
function itemOf(field: string): fc.Arbitrary<Record<string, unknown>> {
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(201), 'a b', 5, null, true, ['x'], { $gt: '' }) },
  );
  const id = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53, '3', null, 1e400) });
  return fc.record({ id, [field]: value });
}
const FIELDS = { movies: 'title', customers: 'name', cars: 'model', users: 'username' } as const;
const anyItem = fc.oneof(...Object.values(FIELDS).map(itemOf));

let issuer: LocalIssuer;
let api: ApiHarness;
let tokens: { all: string; readOnly: string; expired: string; foreign: string; otherAudience: string };

beforeAll(async () => {
  issuer = await startLocalIssuer();
  api = await startApi({ issuer: issuer.issuer });
  const writeAll = 'movies:read movies:write customers:read customers:write cars:read cars:write users:read users:write';
  tokens = {
    all: await issuer.sign({ scope: writeAll }),
    readOnly: await issuer.sign({ scope: 'movies:read cars:read' }),
    expired: await issuer.sign({ scope: writeAll, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }),
    foreign: await issuer.sign({ scope: writeAll }, {}, 'foreign'),
    otherAudience: await issuer.sign({ scope: writeAll, aud: 'https://elsewhere.example/api' }),
  };
  for (const [collection, body] of [
    ['movies', { id: 1, title: 'Metropolis' }],
    ['cars', { id: 2, model: 'Beetle' }],
  ] as const) {
    const seeded = await api.request(`/api/${collection}`, { method: 'POST', token: tokens.all, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (seeded.status !== 201) throw new Error(`seeding ${collection} answered ${seeded.status}`);
  }
});

afterAll(async () => {
  await api?.close();
  await issuer?.close();
});

/** A digest of every stored item. */
async function snapshot(): Promise<string> {
  const rows = await api.database.db.selectFrom('api_items').select(['collection', 'id', 'data', 'updated_at']).orderBy('collection').orderBy('id').execute();
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}

/** Without TRUST_PROXY, forwarded hosts and schemes never reach the links the API builds: every absolute link is on the API's own origin. */
function noForwardedOrigin(harness: ApiHarness, response: FuzzResponse): string[] {
  const links = [...(response.headers.get('location') ?? []), ...(response.headers.get('link') ?? []).map((l) => /^<([^>]*)>/.exec(l)?.[1] ?? l)];
  return links.filter((l) => /^[a-z][a-z0-9+.-]*:/i.test(l) && new URL(l).origin !== harness.url).map((l) => `a link is not on the API's origin: ${l}`);
}

function targetOf(harness: ApiHarness): FuzzTarget {
  return {
    url: harness.url,
    errorShape: anyShape(problemJson, problemXml, htmlErrorPage(/<dt>code<\/dt><dd>[a-z_]+<\/dd>/), parserRejection),
    snapshot,
    check: (_request, response) => noForwardedOrigin(harness, response),
  };
}
const target = () => targetOf(api);

const authorization = () => Object.values(tokens).map((t) => `Bearer ${t}`);

describe('the API under hostile requests', () => {
  const every = fuzzSettings(3000);
  it(
    'keeps its invariants on every route, with and without valid tokens',
    async () => {
      const requests = fuzzRequest({ routes, headers: { authorization: authorization(), accept: ACCEPT, apiVersion: true, hostileHost: true }, bodies: { json: anyItem } });
      await runFuzz('api: every route', target(), requests, { runs: 3000, command: `${COMMAND} -t 'on every route'`, settings: every });
    },
    every.timeoutMs,
  );

  const writes = fuzzSettings(2000);
  it(
    'keeps its invariants on reads and writes that carry a valid token',
    async () => {
      // One request arbitrary per collection, so the body fits the collection the path names.
      const requests = fc.oneof(
        ...Object.entries(FIELDS).map(([collection, field]) =>
          fuzzRequest({
            routes: routes
              .filter((r) => r.path.includes(':resource'))
              .map((r) => ({
                ...r,
                exact: true,
                methods: r.methods?.filter((m) => m !== 'HEAD'),
                params: { ...params, version: r.path.startsWith('/rest/') ? ['v1', '2'] : ['v1', 'v2'], resource: [collection] },
                query: ['limit', 'after'],
                queryValues: { limit: ['1', '2', '200'], after: ['0', '1', '3'] },
              })),
            headers: { authorization: [`Bearer ${tokens.all}`, `Bearer ${tokens.readOnly}`], validAuthorizationOnly: true, accept: ACCEPT, apiVersion: true },
            bodies: { json: itemOf(field) },
          }),
        ),
      );
      await runFuzz('api: authorized reads and writes', target(), requests, { runs: 2000, command: `${COMMAND} -t 'reads and writes'`, settings: writes });
    },
    writes.timeoutMs,
  );
});

describe('the API in introspection mode under hostile requests', () => {
  let opaque: ApiHarness;
  beforeAll(async () => {
    opaque = await startApi({
      issuer: issuer.issuer,
      env: {
        API_TOKEN_MODE: 'introspection',
        API_INTROSPECTION_CLIENT_ID: issuer.introspectionClient.clientId,
        API_INTROSPECTION_CLIENT_SECRET: issuer.introspectionClient.clientSecret,
      },
    });
    const exp = Math.floor(Date.now() / 1000) + 3600;
    issuer.introspection.set('opaque-all', { active: true, iss: issuer.issuer, aud: issuer.audience, sub: 'user-1', client_id: 'app-one', exp, scope: 'movies:read movies:write cars:read' });
    issuer.introspection.set('opaque-expired', { active: true, iss: issuer.issuer, aud: issuer.audience, sub: 'user-1', exp: exp - 7200, scope: 'movies:read' });
    issuer.introspection.set('opaque-other-audience', { active: true, iss: issuer.issuer, aud: 'https://elsewhere.example/api', exp, scope: 'movies:read' });
  });
  afterAll(async () => {
    await opaque?.close();
  });

  const settings = fuzzSettings(1000);
  it(
    'keeps its invariants with opaque tokens checked at the introspection endpoint',
    async () => {
      const authorizations = ['opaque-all', 'opaque-expired', 'opaque-other-audience', 'opaque-unknown', tokens.all].map((t) => `Bearer ${t}`);
      const requests = fuzzRequest({ routes, headers: { authorization: authorizations, accept: ACCEPT, apiVersion: true }, bodies: { json: anyItem } });
      const digest = async () => {
        const rows = await opaque.database.db.selectFrom('api_items').select(['collection', 'id', 'data', 'updated_at']).orderBy('collection').orderBy('id').execute();
        return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
      };
      const target: FuzzTarget = { ...targetOf(opaque), snapshot: digest };
      await runFuzz('api: introspection mode', target, requests, { runs: 1000, command: `${COMMAND} -t 'introspection'`, settings });
    },
    settings.timeoutMs,
  );
});
