/**
 * /admin/v1/identity-providers over HTTP on SQLite and PostgreSQL: create from a preset (201,
 * Location), get, list (keyset paging), update (PATCH, null removes), remove (204); 401 without a
 * token, 403 without admin:identity-providers:write; 400 problems naming the field, 404 and 409
 * problems; secrets go in and never come out (answers, log lines), the stored one is sealed; every
 * change is audited with the calling client as the actor; the OpenAPI document lists the routes
 * and the IdentityProvider schema; the body is the one `authctl idp --json` prints.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { identityProviderJson } from '../../src/admin/json/identity-provider-json.ts';
import { startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, ADMIN_CLIENT, call, machineToken, problemOf } from './admin-support.ts';

const SECRET = 'acme-upstream-secret-0123456789';
const NEW_SECRET = 'acme-upstream-secret-rotated-abc';
const privateJwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

describe.each(TEST_ENGINES)('identity providers over the admin API on %s', (engine) => {
  let server: TestAuthServer;
  let token: string;
  const clock = { now: Date.parse('2026-11-21T12:00:00.000Z') };
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        raw.push(String(chunk));
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    server = await startServer({ engine, clock: () => clock.now, logger: pino({ level: 'debug' }, sink) });
    await addAdminClient(server);
    token = await machineToken(server, 'admin:identity-providers:write');
  });
  afterAll(async () => {
    // Nothing the server logged holds a secret it was given.
    for (const secret of [SECRET, NEW_SECRET, String(privateJwk.d)]) expect(raw.join('')).not.toContain(secret);
    await server.close();
  });

  const actor = { actor_kind: 'client', actor: ADMIN_CLIENT.clientId };
  const auditOf = (event: string) => lines.filter((l) => l.event === event).map((l) => ({ event: l.event, provider: l.provider, actor_kind: l.actor_kind, actor: l.actor, ...(l.fields !== undefined ? { fields: l.fields } : {}) }));

  it('401 without a token, 403 with a token lacking admin:identity-providers:write, on every route', async () => {
    const other = await machineToken(server, 'admin:clients:write');
    for (const [method, path] of [['GET', '/identity-providers'], ['GET', '/identity-providers/x'], ['POST', '/identity-providers'], ['PATCH', '/identity-providers/x'], ['DELETE', '/identity-providers/x']] as const) {
      const anonymous = await call(server, method, path, { token: null, ...(method === 'POST' || method === 'PATCH' ? { body: {} } : {}) });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.body).toMatchObject(problemOf(401, 'invalid_token', path));
      const forbidden = await call(server, method, path, { token: other, ...(method === 'POST' || method === 'PATCH' ? { body: {} } : {}) });
      expect(forbidden.status, `${method} ${path}`).toBe(403);
      expect(forbidden.body).toMatchObject({ ...problemOf(403, 'insufficient_scope', path), detail: 'This request needs the scope admin:identity-providers:write.' });
    }
  });

  it('POST from the github preset: 201 with Location, the secret stored sealed and never answered', async () => {
    const created = await call(server, 'POST', '/identity-providers', { token, body: { slug: 'github', preset: 'github', client_id: 'Iv1.0123', client_secret: SECRET, display_name: 'GitHub', group_mappings: [{ upstream: 'acme/admins', group: 'admins' }] } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/admin/v1/identity-providers/github');
    expect(created.body).toEqual({
      slug: 'github',
      display_name: 'GitHub',
      kind: 'oauth2',
      preset: 'github',
      enabled: true,
      issuer: null,
      issuer_template: null,
      allowed_tenants: null,
      authorization_endpoint: 'https://github.com/login/oauth/authorize',
      token_endpoint: 'https://github.com/login/oauth/access_token',
      userinfo_endpoint: 'https://api.github.com/user',
      emails_endpoint: 'https://api.github.com/user/emails',
      client_id: 'Iv1.0123',
      client_secret_set: true,
      token_endpoint_auth_method: 'client_secret_post',
      private_key_set: false,
      scopes: ['read:user', 'user:email'],
      use_userinfo: true,
      claims: { subject: 'id', username: 'login', email: 'email', email_verified: 'email_verified', name: 'name', groups: null },
      trust_email: false,
      group_mappings: [{ upstream: 'acme/admins', group: 'admins' }],
      provisioning: 'just_in_time',
      mfa_policy: 'always_local',
      mfa_accepted_amr: [],
      mfa_accepted_acr: [],
      home_realm_domains: [],
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: null,
    });
    expect(JSON.stringify(created.body)).not.toContain(SECRET);
    const stored = await server.app.services.identityProviderStore.credentials('github');
    expect(stored).toEqual({ clientSecret: SECRET });
    // The same shape as authctl idp --json prints.
    expect(created.body).toEqual(identityProviderJson((await server.app.services.identityProviderStore.find('github'))!));
    expect(auditOf('identity_provider.created')).toEqual([{ event: 'identity_provider.created', provider: 'github', ...actor }]);
  });

  it('POST microsoft with private_key_jwt; GET shows it; the list pages by slug', async () => {
    const created = await call(server, 'POST', '/identity-providers', {
      token,
      body: { slug: 'entra', preset: 'microsoft', tenant: 'organizations', client_id: 'app', token_endpoint_auth_method: 'private_key_jwt', private_jwk: privateJwk, home_realm_domains: ['acme.example'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'oidc', issuer_template: 'https://login.microsoftonline.com/{tenantid}/v2.0', client_secret_set: false, private_key_set: true, mfa_policy: 'trust_upstream' });
    expect(JSON.stringify(created.body)).not.toContain(String(privateJwk.d));
    const got = await call(server, 'GET', '/identity-providers/entra', { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    const first = await call(server, 'GET', '/identity-providers?limit=1', { token });
    expect(first.status).toBe(200);
    expect((first.body.items as { slug: string }[]).map((p) => p.slug)).toEqual(['entra']);
    const second = await call(server, 'GET', `/identity-providers?limit=1&after=${String(first.body.next)}`, { token });
    expect(second.body).toMatchObject({ items: [{ slug: 'github' }], next: null });
  });

  it('PATCH changes what is given, removes with null, replaces the secret, and audits the field names', async () => {
    clock.now += 60_000;
    const patched = await call(server, 'PATCH', '/identity-providers/entra', {
      token,
      body: { display_name: 'Acme Entra', issuer_template: null, token_endpoint_auth_method: 'client_secret_basic', client_secret: NEW_SECRET, claims: { groups: null }, enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      display_name: 'Acme Entra',
      issuer_template: null,
      issuer: 'https://login.microsoftonline.com/organizations/v2.0',
      client_secret_set: true,
      private_key_set: false,
      enabled: false,
      claims: { groups: null, username: 'preferred_username' },
      updated_at: '2026-11-21T12:01:00.000Z',
    });
    expect(await server.app.services.identityProviderStore.credentials('entra')).toEqual({ clientSecret: NEW_SECRET });
    expect(auditOf('identity_provider.updated')).toEqual([
      { event: 'identity_provider.updated', provider: 'entra', ...actor, fields: 'display_name,enabled,issuer_template,token_endpoint_auth_method,claims,client_secret' },
    ]);
  });

  it('bad input: 400 validation_failed naming the field; 404; 409', async () => {
    const cases: Array<[string, string, unknown, string, string]> = [
      ['POST', '/identity-providers', { slug: 'Bad Slug', client_id: 'a', client_secret: 's', issuer: 'https://x.example' }, 'slug', 'slug must be 1-64 lower-case letters, digits or "-", starting and ending with a letter or digit'],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', client_secret: 's' }, 'issuer', 'issuer an OpenID Connect provider needs an issuer'],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', client_secret: 's', issuer: 'http://x.example' }, 'issuer', 'issuer must use https (http only on localhost or 127.0.0.1)'],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', issuer: 'https://x.example' }, 'client_secret', 'client_secret_basic needs a client_secret'],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', client_secret: 's', preset: 'github', kind: 'oidc' }, 'kind', 'the preset github makes an oauth2 provider, not oidc'],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', client_secret: 's', preset: 'okta' }, 'preset', expect.any(String) as unknown as string],
      ['POST', '/identity-providers', { slug: 'x', client_secret: 's', issuer: 'https://x.example' }, 'client_id', expect.any(String) as unknown as string],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', client_secret: 's', issuer: 'https://x.example', mfa_policy: 'sometimes' }, 'mfa_policy', expect.any(String) as unknown as string],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', issuer: 'https://x.example', token_endpoint_auth_method: 'private_key_jwt', private_jwk: { kty: 'oct', k: 'c2VjcmV0' } }, 'private_jwk', 'private_jwk must be an RSA, EC or OKP key'],
      ['POST', '/identity-providers', { slug: 'x', client_id: 'a', client_secret: 's', issuer: 'https://x.example', home_realm_domains: ['not a domain'] }, 'home_realm_domains', 'home_realm_domains each domain must be a lower-case DNS name (example.com)'],
      ['PATCH', '/identity-providers/github', { issuer: 'https://x.example' }, 'issuer', 'issuer applies only to an OpenID Connect provider'],
      ['PATCH', '/identity-providers/github', { group_mappings: [{ upstream: 'x', group: 'has space' }] }, 'group_mappings', 'group_mappings each group must be 1-64 characters without spaces or commas'],
      ['GET', '/identity-providers?after=garbage', undefined, 'after', 'the cursor is not one this server issued'],
      ['GET', '/identity-providers?limit=0', undefined, 'limit', expect.any(String) as unknown as string],
    ];
    for (const [method, path, body, field, message] of cases) {
      const answer = await call(server, method, path, { token, ...(body !== undefined ? { body } : {}) });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body).toMatchObject(problemOf(400, 'validation_failed', path.split('?')[0]!));
      expect(answer.body.errors, `${method} ${path} ${JSON.stringify(body)}`).toEqual([{ field, message }]);
    }
    const unknownMember = await call(server, 'POST', '/identity-providers', { token, body: { slug: 'x', client_id: 'a', client_secret: 's', issuer: 'https://x.example', secret: 'x' } });
    expect(unknownMember.body.errors).toEqual([{ field: 'secret', message: 'is not a known field' }]);
    const empty = await call(server, 'PATCH', '/identity-providers/github', { token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject(problemOf(400, 'validation_failed', '/identity-providers/github'));
    const notJson = await call(server, 'POST', '/identity-providers', { token, rawBody: '{', contentType: 'application/json' });
    expect(notJson.body).toMatchObject(problemOf(400, 'malformed_body', '/identity-providers'));
    expect(await server.app.services.identityProviderStore.find('x')).toBeUndefined();

    for (const [method, path] of [['GET', '/identity-providers/nope'], ['PATCH', '/identity-providers/nope'], ['DELETE', '/identity-providers/nope']] as const) {
      const missing = await call(server, method, path, { token, ...(method === 'PATCH' ? { body: { enabled: true } } : {}) });
      expect(missing.status, `${method} ${path}`).toBe(404);
      expect(missing.body).toMatchObject({ ...problemOf(404, 'identity_provider_not_found', path), detail: 'There is no identity provider with this slug.' });
    }
    const taken = await call(server, 'POST', '/identity-providers', { token, body: { slug: 'github', preset: 'github', client_id: 'a', client_secret: 's' } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ ...problemOf(409, 'duplicate_identity_provider', '/identity-providers'), detail: 'identity provider "github" already exists' });
    const domain = await call(server, 'PATCH', '/identity-providers/github', { token, body: { home_realm_domains: ['acme.example'] } });
    expect(domain.status).toBe(409);
    expect(domain.body).toMatchObject({ ...problemOf(409, 'domain_in_use', '/identity-providers/github'), detail: 'the domain acme.example already belongs to the identity provider "entra"' });
  });

  it('DELETE removes the provider: 204, then 404; audited', async () => {
    const removed = await call(server, 'DELETE', '/identity-providers/entra', { token });
    expect(removed.status).toBe(204);
    expect((await call(server, 'GET', '/identity-providers/entra', { token })).status).toBe(404);
    expect(auditOf('identity_provider.removed')).toEqual([{ event: 'identity_provider.removed', provider: 'entra', ...actor }]);
  });

  it('the OpenAPI document lists the routes with their scope, and the IdentityProvider schema without a secret member', async () => {
    const doc = (await call(server, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; security: { adminToken?: string[] }[]; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
    };
    const ops = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/identity-providers'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [method.toUpperCase(), path, op.operationId, op.security[0]?.adminToken?.[0]]));
    expect(ops).toEqual([
      ['GET', '/identity-providers', 'listIdentityProviders', 'admin:identity-providers:write'],
      ['POST', '/identity-providers', 'createIdentityProvider', 'admin:identity-providers:write'],
      ['GET', '/identity-providers/{slug}', 'getIdentityProvider', 'admin:identity-providers:write'],
      ['PATCH', '/identity-providers/{slug}', 'updateIdentityProvider', 'admin:identity-providers:write'],
      ['DELETE', '/identity-providers/{slug}', 'removeIdentityProvider', 'admin:identity-providers:write'],
    ]);
    expect(Object.keys(doc.paths['/identity-providers/{slug}']!.patch!.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409']);
    const schema = doc.components.schemas.IdentityProvider!;
    expect(Object.keys(schema.properties)).toContain('client_secret_set');
    expect(Object.keys(schema.properties).filter((name) => /secret|jwk/.test(name))).toEqual(['client_secret_set']);
    expect(doc.components.schemas.IdentityProviderPage).toBeDefined();
  });
});
