/**
 * The /admin/v1 framework (admin/http/): bearer tokens (401/403 with WWW-Authenticate), problem
 * documents, unknown paths and methods, bad query and body input, Cache-Control, and the OpenAPI
 * document against the router's route table.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAdminApi } from '../../src/admin/http/admin-api.ts';
import { ADMIN_PATHS, ADMIN_ROUTE_PATTERNS } from '../../src/admin/http/admin-paths.ts';
import { authRouteName as routeName } from '../../src/http/route-name.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken, problemOf } from './admin-support.ts';

describe.each(TEST_ENGINES)('the admin API framework on %s', (engine) => {
  let server: TestAuthServer;
  let realm: string;
  let reader: string;

  beforeAll(async () => {
    server = await startServer({ engine });
    realm = `realm="${server.issuer}/admin/v1"`;
    await addAdminClient(server);
    reader = await machineToken(server, 'admin:users:read');
  });
  afterAll(() => server.close());

  it('no token: 401 invalid_token, WWW-Authenticate without an error (RFC 6750 3.1), problem+json, no-store', async () => {
    const answer = await call(server, 'GET', '/users');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer ${realm}`);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      type: 'urn:gatehouse:admin:problem:invalid_token',
      title: 'Unauthorized',
      status: 401,
      detail: 'An access token for the admin API is required (Authorization: Bearer).',
      code: 'invalid_token',
      instance: '/admin/v1/users',
    });
  });

  it.each([
    ['a malformed header', 'Basic abc', 'The Authorization header is not a bearer token.'],
    ['a token that is no JWT', 'Bearer not-a-token', 'The access token is not valid.'],
    ['a JWT not signed by us', 'Bearer eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJ4In0.', 'The access token is not valid.'],
  ])('%s: 401 with error="invalid_token"', async (_name, authorization, detail) => {
    const response = await fetch(`${server.issuer}/admin/v1/users`, { headers: { authorization } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer ${realm}, error="invalid_token"`);
    expect(await response.json()).toMatchObject({ ...problemOf(401, 'invalid_token', '/users'), detail });
  });

  it('a token for the API audience is refused (401): tokens are bound to their audience', async () => {
    const { access_token } = await server.login({ scope: 'openid movies:read' });
    const answer = await call(server, 'GET', '/users', { token: access_token });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ ...problemOf(401, 'invalid_token', '/users'), detail: 'The access token is not for the admin API.' });
  });

  it('a token signed with another key, or signed by us for a client that does not exist: 401', async () => {
    const claims = { sub: 'admin-machine', client_id: 'admin-machine', aud: `${server.issuer}/admin/v1`, scope: 'admin:users:read', jti: 'forged-1', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300, iss: server.issuer };
    const { privateKey } = await generateKeyPair('RS256');
    const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'foreign' }).sign(privateKey);
    const refused = await call(server, 'GET', '/users', { token: foreign });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The access token is not valid.');
    const ours = await server.sign(claims);
    expect((await call(server, 'GET', '/users', { token: ours })).status).toBe(200);
    const ghost = await server.sign({ ...claims, sub: 'no-such-client', client_id: 'no-such-client', jti: 'forged-2' });
    const inactive = await call(server, 'GET', '/users', { token: ghost });
    expect(inactive.status).toBe(401);
    expect(inactive.body.detail).toBe('The access token is expired or revoked.');
  });

  it('a revoked admin token: 401', async () => {
    const token = await machineToken(server, 'admin:users:read');
    expect((await call(server, 'GET', '/users', { token })).status).toBe(200);
    const revoke = await fetch(`${server.issuer}/oauth2/v1/revoke`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('admin-machine:admin-machine-secret-0123456789').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    expect(revoke.status).toBe(200);
    const answer = await call(server, 'GET', '/users', { token });
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toBe('The access token is expired or revoked.');
  });

  it('a token without the route\'s scope: 403 insufficient_scope naming the scope', async () => {
    const token = await machineToken(server, 'admin:keys');
    const answer = await call(server, 'GET', '/users', { token });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer ${realm}, error="insufficient_scope", scope="admin:users:read"`);
    expect(answer.body).toMatchObject({ ...problemOf(403, 'insufficient_scope', '/users'), title: 'Forbidden', detail: 'This request needs the scope admin:users:read.' });
  });

  it('unknown paths: 404 not_found problems, token or not', async () => {
    for (const path of ['', '/', '/nothing', '/users/a/b/c', '/users/', '/%E0%A4%A']) {
      const answer = await call(server, 'GET', path, { token: reader });
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toMatchObject({ type: 'urn:gatehouse:admin:problem:not_found', code: 'not_found', status: 404 });
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('a method the path does not offer: 405 with Allow, before the token is looked at', async () => {
    const answer = await call(server, 'PUT', '/openapi.json');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(answer.body).toMatchObject({ ...problemOf(405, 'method_not_allowed', '/openapi.json'), detail: 'PUT is not allowed here; use GET.' });
    const unknownMethod = await fetch(`${server.issuer}/admin/v1/users`, { method: 'PROPFIND' });
    expect(unknownMethod.status).toBe(405);
  });

  it('bad query input: 400 validation_failed with the field errors', async () => {
    const limit = await call(server, 'GET', '/users?limit=0', { token: reader });
    expect(limit.status).toBe(400);
    expect(limit.body).toMatchObject(problemOf(400, 'validation_failed', '/users'));
    expect(limit.body.errors).toEqual([{ field: 'limit', message: expect.any(String) }]);
    const unknown = await call(server, 'GET', '/users?sort=name', { token: reader });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ field: 'sort', message: 'is not a known field' }]);
    const twice = await call(server, 'GET', '/users?q=a&q=b', { token: reader });
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toEqual([{ field: 'q', message: 'is given more than once' }]);
  });

  it('the OpenAPI document is served without a token and describes every scope, the problem schema and the security scheme', async () => {
    const answer = await call(server, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const doc = answer.body as { openapi: string; servers: { url: string }[]; components: { securitySchemes: Record<string, { flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } } }>; schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: `${server.issuer}/admin/v1` }]);
    const scheme = doc.components.securitySchemes.adminToken!;
    expect(scheme.flows.clientCredentials.tokenUrl).toBe(`${server.issuer}/oauth2/v1/token`);
    expect(Object.keys(scheme.flows.clientCredentials.scopes)).toEqual(['admin:users:read', 'admin:users:write', 'admin:clients:write', 'admin:keys', 'admin:audit:read', 'admin:identity-providers:write']);
    expect(doc.components.schemas.Problem).toMatchObject({ required: ['type', 'title', 'status', 'code'] });
  });

  it('the document is self-consistent: every $ref resolves, every operation has an id, responses and path parameters declared', async () => {
    const doc = (await call(server, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>>; components: { schemas: Record<string, unknown> } };
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty(ref);
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^\w+$/);
        expect(ids.has(op.operationId), op.operationId).toBe(false);
        ids.add(op.operationId);
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
        expect((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name), `${method} ${path}`).toEqual(pathParams);
      }
    }
  });

  it('every route of the router is in the document with its scope, and the document has no other operation', async () => {
    const api = createAdminApi({
      issuer: server.issuer,
      tokens: { decode: async () => undefined, isActive: async () => false },
      accounts: server.app.services.accounts,
      policies: server.app.services.scopePolicies,
      users: undefined as never,
      keys: undefined as never,
      logger: createLogger({ level: 'silent' }),
    } as never);
    const doc = (await call(server, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, { security: { adminToken?: string[] }[] }>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.security[0]?.adminToken?.[0] ?? 'public'}`),
    );
    const routed = api.routes.map((r) => `${r.method} ${r.path} ${r.scope ?? 'public'}`);
    expect(routed.length).toBeGreaterThan(2);
    expect([...documented].sort()).toEqual([...routed].sort());
    // The metrics label admin requests by these paths (admin-paths.ts).
    expect([...new Set(api.routes.map((r) => r.path))].sort()).toEqual([...ADMIN_PATHS].sort());
  });

  it('request metrics label admin requests by route pattern, never by id', () => {
    const authRouteName = routeName([ADMIN_ROUTE_PATTERNS]);
    expect(authRouteName('/admin/v1/users/0b8f5e2a-1111-4222-8333-444455556666/grants/g-1')).toBe('/admin/v1/users/:id/grants/:grantId');
    expect(authRouteName('/admin/v1/users')).toBe('/admin/v1/users');
    expect(authRouteName('/admin/v1/keys/rotate')).toBe('/admin/v1/keys/rotate');
    expect(authRouteName('/admin/v1/nothing')).toBe('other');
  });
});
