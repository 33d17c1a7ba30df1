/**
 * Fuzz: every /admin/v1 route with random and hostile requests (methods, mutated paths, queries,
 * bodies, bearer values) over real HTTP. Invariants (@gatehouse/fuzz): no 5xx, no stack trace;
 * under /admin/v1 every 4xx is a problem document with a code the admin API declares
 * (admin/http/problem.ts) and every answer is `Cache-Control: no-store`; outside it (a mutated
 * path) the server's usual contract shapes; a refused request changes no stored account or key.
 */
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { anyShape, fc, fuzzRequest, fuzzSettings, parserRejection, problemJson, runFuzz, type FuzzResponse, type FuzzTarget, type RouteSpec } from '@gatehouse/fuzz';
import { ADMIN_PROBLEM_CODES } from '../../src/admin/http/problem.ts';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { createAuditor } from '../../src/audit/auditor.ts';
import { createIdentityProviderService } from '../../src/federation/identity-provider-service.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, machineToken } from '../admin/admin-support.ts';
import { authErrorShape, pathOf } from './auth-contract.ts';
import { replayCommand } from './auth-fuzz-target.ts';

const RUNS = 400;
const CODES: ReadonlySet<string> = new Set(ADMIN_PROBLEM_CODES);

describe.each(TEST_ENGINES)('fuzz: the admin API (/admin/v1) on %s', (engine) => {
  let server: TestAuthServer;
  let routes: RouteSpec[];
  let authorization: string[];

  beforeAll(async () => {
    server = await startServer({ engine });
    await addAdminClient(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const user = await server.createUser();
      ids.push((await server.app.services.accounts.findByUsername(user.username))!.id);
    }
    const identityProviders = createIdentityProviderService({ store: server.app.services.identityProviderStore, links: server.app.services.accountLinks, audit: createAuditor({ logger: pino({ level: 'silent' }) }) });
    await identityProviders.create(CLI_OPERATOR, { slug: 'github', preset: 'github', clientId: 'Iv1.fuzz', clientSecret: 'fuzz-secret' });
    // Every scope but admin:keys (a valid rotation per run would only make the run slow), a
    // read-only token, and a token of the API audience.
    authorization = [
      `Bearer ${await machineToken(server, 'admin:users:read admin:users:write admin:clients:write admin:audit:read admin:identity-providers:write')}`,
      `Bearer ${await machineToken(server, 'admin:users:read')}`,
      `Bearer ${(await server.login({ scope: 'openid movies:read' })).access_token}`,
    ];
    const id = [...ids, '00000000-0000-4000-8000-000000000000', 'constructor', '__proto__'];
    const params = { id, grantId: ['g-1', 'constructor', ''] };
    routes = [
      { path: '/admin/v1/openapi.json', methods: ['GET', 'HEAD'] },
      { path: '/admin/v1/users', methods: ['GET', 'POST'], query: ['q', 'limit', 'after'] },
      { path: '/admin/v1/users/:id', methods: ['GET', 'PATCH'], params },
      { path: '/admin/v1/users/:id/disable', methods: ['POST'], params },
      { path: '/admin/v1/users/:id/enable', methods: ['POST'], params },
      { path: '/admin/v1/users/:id/unlock', methods: ['POST'], params },
      { path: '/admin/v1/users/:id/password', methods: ['POST'], params },
      { path: '/admin/v1/users/:id/second-factors/reset', methods: ['POST'], params },
      { path: '/admin/v1/users/:id/sessions', methods: ['GET'], params },
      { path: '/admin/v1/users/:id/signout-all', methods: ['POST'], params },
      { path: '/admin/v1/users/:id/grants', methods: ['GET'], params },
      { path: '/admin/v1/users/:id/grants/:grantId', methods: ['DELETE'], params },
      { path: '/admin/v1/keys', methods: ['GET'] },
      { path: '/admin/v1/keys/rotate', methods: ['POST'] },
      { path: '/admin/v1/identity-providers', methods: ['GET', 'POST'], query: ['limit', 'after'] },
      { path: '/admin/v1/identity-providers/:slug', methods: ['GET', 'PATCH', 'DELETE'], params: { slug: ['github', 'nope', 'constructor', '__proto__', ''] } },
    ];
  });
  afterAll(() => server?.close());

  /** Accounts and keys as stored: a refused request must leave them as they were. */
  async function snapshot(): Promise<string> {
    const { db } = server.database;
    const accounts = await db.selectFrom('accounts').selectAll().orderBy('id').execute();
    const keys = await db.selectFrom('signing_keys').select(['kid', 'retired_at']).orderBy('kid').execute();
    return createHash('sha256').update(JSON.stringify({ accounts, keys })).digest('base64url');
  }

  const underAdmin = (path: string) => path === '/admin/v1' || path.startsWith('/admin/v1/');
  const mediaType = (response: FuzzResponse) => (response.header('content-type') ?? '').split(';')[0]!.trim();

  /** Runs the fuzz with these header options. */
  async function fuzz(name: string, validAuthorizationOnly: boolean): Promise<void> {
    const body = fc.record(
      {
        username: fc.oneof(fc.stringMatching(/^[a-z0-9._-]{1,12}$/), fc.string()),
        email: fc.oneof(fc.constant('x@example.com'), fc.string()),
        name: fc.string({ maxLength: 20 }),
        groups: fc.array(fc.oneof(fc.constantFrom('admins', 'editors'), fc.string()), { maxLength: 3 }),
        password: fc.oneof(fc.constant('a long enough passphrase'), fc.string({ maxLength: 20 })),
      },
      { requiredKeys: [] },
    );
    const requests = fuzzRequest({
      routes: validAuthorizationOnly ? routes.map((r) => ({ ...r, exact: true })) : routes,
      headers: { authorization: validAuthorizationOnly ? authorization.slice(0, 1) : authorization, validAuthorizationOnly, accept: ['application/json', 'application/problem+json'] },
      bodies: { json: body },
    });
    const target: FuzzTarget = {
      url: server.issuer,
      errorShape: (response, request) => (underAdmin(pathOf(request)) ? anyShape(problemJson, parserRejection) : authErrorShape)(response, request),
      snapshot,
      check: (request, response) => {
        if (!underAdmin(pathOf(request)) || response.body.length === 0 && response.header('content-type') === undefined) return [];
        const problems: string[] = [];
        if (response.header('cache-control') !== 'no-store') problems.push(`Cache-Control is ${response.header('cache-control')}, not no-store`);
        if (response.status >= 400 && mediaType(response) === 'application/problem+json' && request.method.toUpperCase() !== 'HEAD') {
          const code = (JSON.parse(response.text) as { code?: unknown }).code;
          if (typeof code !== 'string' || !CODES.has(code)) problems.push(`problem code ${JSON.stringify(code)} is not declared in problem.ts`);
        }
        return problems;
      },
    };
    await runFuzz(`${name} (${engine})`, target, requests, { runs: RUNS, command: replayCommand('admin-api.test.ts') });
  }

  it('keeps the invariants with any bearer value', () => fuzz('admin api', false), fuzzSettings(RUNS).timeoutMs);

  it('keeps the invariants past the token check (a valid token with every user scope, exact paths)', () => fuzz('admin api, valid token', true), fuzzSettings(RUNS).timeoutMs);
});
