/**
 * The admin API's OpenAPI document is built from the routes' declarations (admin-route.ts,
 * openapi.ts): every route the router serves is documented and nothing else is; the schemas the
 * router validates with keep its answers (exact statuses and problem bodies, metadata changes
 * nothing); a few operations checked member by member, without a snapshot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAdminRouter } from '../../src/admin/http/admin-router.ts';
import { createBearerCheck } from '../../src/admin/http/bearer.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, machineToken } from './admin-support.ts';

type Operation = {
  summary: string;
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown>; description?: string }[];
  requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Record<string, unknown>> } };

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

describe('the admin API\'s OpenAPI document', () => {
  let server: TestAuthServer;
  let doc: Document;
  let writer: string;
  let clientsToken: string;

  beforeAll(async () => {
    server = await startServer();
    await addAdminClient(server);
    writer = await machineToken(server, 'admin:users:write');
    clientsToken = await machineToken(server, 'admin:clients:write');
    doc = (await call(server, 'GET', '/openapi.json')).body as unknown as Document;
  });
  afterAll(() => server.close());

  const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

  it('every documented operation is served: a request to it is never 404 or 405, and needs a token unless public', async () => {
    expect(operations().length).toBe(30);
    for (const { path, method, op } of operations()) {
      const answer = await call(server, method, path.replace(/\{\w+\}/g, 'x'));
      const expected = op.security.length === 0 ? 200 : 401;
      expect(answer.status, `${method} ${path}`).toBe(expected);
    }
  });

  it('every path the router serves is documented: a path or method beside them is 404 or 405 and in no operation', async () => {
    const documented = new Set(operations().map(({ path, method }) => `${method} ${path}`));
    for (const [method, path] of [['GET', '/users/{id}/password'], ['PUT', '/users/{id}'], ['POST', '/keys'], ['GET', '/clients/{id}/secret'], ['DELETE', '/audit-events']] as const) {
      expect(documented.has(`${method} ${path}`)).toBe(false);
      expect([404, 405], `${method} ${path}`).toContain((await call(server, method, path.replace(/\{\w+\}/g, 'x'))).status);
    }
  });

  it('is self-contained OpenAPI 3.1: every $ref resolves, no JSON Schema dialect inside, every problem is the Problem schema', () => {
    expect(doc.openapi).toBe('3.1.0');
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"$schema"');
    expect(text).not.toContain('"$defs"');
    for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas).toHaveProperty(name!);
    for (const { path, method, op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(answer.content, `${method} ${path} ${status}`).toEqual(PROBLEM);
      }
      if (op.security.length > 0) expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '401', '403']));
    }
  });

  it('POST /users: its body, its answers and its scope', () => {
    const op = doc.paths['/users']!.post!;
    expect(op.operationId).toBe('createUser');
    expect(op.security).toEqual([{ adminToken: ['admin:users:write'] }]);
    expect(op.parameters).toBeUndefined();
    expect(op.requestBody!.required).toBe(true);
    const body = op.requestBody!.content['application/json']!.schema;
    expect(body).toMatchObject({ type: 'object', additionalProperties: false, required: ['username', 'email', 'name'] });
    expect(body.properties).toEqual({
      username: { type: 'string', pattern: '^[a-zA-Z0-9._@-]{1,64}$' },
      email: { type: 'string', format: 'email', maxLength: 254 },
      name: { type: 'string', minLength: 1, maxLength: 128 },
      groups: { type: 'array', items: { type: 'string' }, maxItems: 64, default: [] },
      password: { type: 'string', minLength: 12, maxLength: 128 },
    });
    expect(Object.keys(op.responses).sort()).toEqual(['201', '400', '401', '403', '409', '422']);
    expect(op.responses['201']).toEqual({
      description: 'The user',
      headers: { Location: { schema: { type: 'string' }, description: 'The new user' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/UserDetails' } } },
    });
    expect(op.responses['403']!.description).toBe('The token lacks the scope admin:users:write (`insufficient_scope`)');
  });

  it('POST /clients/{id}/secret/rotate: a path parameter, an optional body with its default', () => {
    const op = doc.paths['/clients/{id}/secret/rotate']!.post!;
    expect(op.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The client id' }]);
    expect(op.requestBody!.required).toBe(false);
    expect(op.requestBody!.content['application/json']!.schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { grace_seconds: { type: 'integer', minimum: 0, maximum: 2_592_000, default: 86_400 } },
    });
    expect(op.responses['200']!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ClientWithSecret' } } });
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409']);
  });

  it('GET /audit-events: the query schema as parameters, in order, with their bounds; the page references AuditEvent', () => {
    const op = doc.paths['/audit-events']!.get!;
    expect(op.parameters!.map((p) => [p.name, p.in, p.required ?? false])).toEqual([
      ['user', 'query', false], ['client', 'query', false], ['event', 'query', false], ['since', 'query', false], ['until', 'query', false], ['limit', 'query', false], ['after', 'query', false],
    ]);
    expect(op.parameters!.find((p) => p.name === 'limit')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(op.parameters!.find((p) => p.name === 'since')!.description).toMatch(/^Inclusive: ISO 8601/);
    expect(op.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/AuditEventPage' });
    expect(doc.components.schemas.AuditEventPage).toMatchObject({ required: ['items', 'next'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/AuditEvent' } } } });
  });

  it('GET /openapi.json is public: no security, no token problems', () => {
    const op = doc.paths['/openapi.json']!.get!;
    expect(op.security).toEqual([]);
    expect(Object.keys(op.responses)).toEqual(['200']);
  });

  it('request validation keeps its exact statuses and problem bodies; documentation-only rules change nothing', async () => {
    const id = (await server.createUser({ username: 'olive' }), (await server.app.services.accounts.findByUsername('olive'))!.id);
    const problem = (status: number, title: string, code: string, instance: string, detail: string, errors?: unknown) => ({
      type: `urn:gatehouse:admin:problem:${code}`, title, status, detail, code, instance: `/admin/v1${instance}`, ...(errors ? { errors } : {}),
    });
    const invalid = 'The request has invalid fields; see errors.';
    const cases: [string, string, string, { body?: unknown; rawBody?: string; contentType?: string }, number, unknown][] = [
      [writer, 'POST', '/users', { body: { username: 'x', email: 'x@example.com', name: 'X', nickname: 'y' } }, 400, problem(400, 'Bad Request', 'validation_failed', '/users', invalid, [{ field: 'nickname', message: 'is not a known field' }])],
      [writer, 'POST', '/users', { body: { username: 'has space', email: 'x@example.com', name: 'X' } }, 400, problem(400, 'Bad Request', 'validation_failed', '/users', invalid, [{ field: 'username', message: 'username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"' }])],
      [writer, 'POST', '/users', { body: { username: 'shorty', email: 'x@example.com', name: 'X', password: 'short' } }, 422, problem(422, 'Unprocessable Entity', 'password_too_short', '/users', expect.any(String))],
      [writer, 'PATCH', `/users/${id}`, { body: {} }, 400, problem(400, 'Bad Request', 'validation_failed', `/users/${id}`, invalid, [{ field: '(body)', message: 'name at least one of email, name, groups' }])],
      [writer, 'POST', `/users/${id}/password`, { body: { password: 12 } }, 400, problem(400, 'Bad Request', 'validation_failed', `/users/${id}/password`, invalid, [{ field: 'password', message: 'Invalid input: expected string, received number' }])],
      [writer, 'POST', '/users', { rawBody: '{"username":', contentType: 'application/json' }, 400, problem(400, 'Bad Request', 'malformed_body', '/users', 'The body is not valid JSON.')],
      [writer, 'POST', '/users', { rawBody: 'username=x', contentType: 'application/x-www-form-urlencoded' }, 415, problem(415, 'Unsupported Media Type', 'unsupported_media_type', '/users', 'Send the body as application/json.')],
      [clientsToken, 'POST', '/clients/nobody/secret/rotate', { body: { grace_seconds: -1 } }, 400, problem(400, 'Bad Request', 'validation_failed', '/clients/nobody/secret/rotate', invalid, [{ field: 'grace_seconds', message: 'Too small: expected number to be >=0' }])],
      [clientsToken, 'GET', '/clients?limit=201', {}, 400, problem(400, 'Bad Request', 'validation_failed', '/clients', invalid, [{ field: 'limit', message: 'Too big: expected number to be <=200' }])],
      [clientsToken, 'POST', '/clients', { body: { client_id: 'bad id!' } }, 400, { code: 'validation_failed', errors: [{ field: 'client_id', message: expect.any(String) }] }],
    ];
    for (const [token, method, path, options, status, body] of cases) {
      const answer = await call(server, method, path, { token, ...options });
      expect(answer.status, `${method} ${path} ${JSON.stringify(options)}`).toBe(status);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      if ((body as { type?: string }).type) expect(answer.body, `${method} ${path}`).toEqual(body);
      else expect(answer.body, `${method} ${path}`).toMatchObject(body as Record<string, unknown>);
    }
  });
});

describe('a route declaration', () => {
  const router = () =>
    createAdminRouter({
      bearer: createBearerCheck({ tokens: { decode: async () => undefined, isActive: async () => false }, accounts: { findById: async () => undefined }, policies: { clientScopes: async () => null }, audience: 'http://x/admin/v1' }),
      logger: createLogger({ level: 'silent' }),
    });
  const base = { method: 'GET', scope: null, summary: 'S', operationId: 'op', responses: { 200: { description: 'ok', body: z.object({}) } }, handle: async () => ({ status: 200 }) } as const;

  it('must describe exactly the path\'s parameters', () => {
    expect(() => router().add({ ...base, path: '/things/{id}' })).toThrow('admin route GET /things/{id}: params must describe exactly id, not nothing');
    expect(() => router().add({ ...base, path: '/things', params: { id: 'The id' } })).toThrow('admin route GET /things: params must describe exactly nothing, not id');
    const ok = router();
    ok.add({ ...base, path: '/things/{id}', params: { id: 'The id' } });
    expect(ok.routes).toEqual([{ method: 'GET', path: '/things/{id}', scope: null, summary: 'S', operationId: 'op', params: { id: 'The id' }, responses: base.responses }]);
  });
});
