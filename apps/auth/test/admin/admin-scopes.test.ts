/**
 * Who gets admin scopes (policy/admin-scopes.ts) and what the tokens look like
 * (oidc/resource-server.ts): the admin audience, always an RS256 at+jwt, the scope claim exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { ADMIN_SCOPES } from '../../src/policy/admin-scopes.ts';
import { APP_TWO, decodeJwt, decodeProtectedHeader, startServer, type TestAuthServer } from '../support/flow.ts';
import { addAdminClient, call, clientCredentials, userTokens } from './admin-support.ts';

describe.each(TEST_ENGINES)('admin scopes on %s', (engine) => {
  let server: TestAuthServer;
  let audience: string;

  beforeAll(async () => {
    // Opaque API tokens: the admin audience is a JWT whatever AUTH_API_TOKEN_FORMAT says.
    server = await startServer({ engine, tokenFormat: 'opaque' });
    audience = `${server.issuer}/admin/v1`;
    await addAdminClient(server);
    await server.app.services.scopePolicies.setClientScopes(APP_TWO.clientId, ['movies:read', 'admin:users:read', 'admin:users:write']);
  });
  afterAll(() => server.close());

  it('client_credentials of a client listing the scopes: an RS256 at+jwt for the admin audience with exactly the scopes asked', async () => {
    const { status, body } = await clientCredentials(server, 'admin:users:read admin:keys');
    expect(status).toBe(200);
    expect(body.scope).toBe('admin:users:read admin:keys');
    expect(body.token_type).toBe('Bearer');
    const token = String(body.access_token);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const claims = decodeJwt(token);
    expect(claims.aud).toBe(audience);
    expect(claims.scope).toBe('admin:users:read admin:keys');
    expect(claims.sub).toBe('admin-machine');
    expect(claims.client_id).toBe('admin-machine');
    expect(claims.iss).toBe(server.issuer);
  });

  it('a client without a limit gets no admin scope, and its token opens nothing', async () => {
    const { clientId, clientSecret } = server.introspectionClient;
    const { status, body } = await clientCredentials(server, 'admin:users:read admin:users:write', { clientId, clientSecret });
    expect(status).toBe(200);
    expect(body.scope).toBeUndefined();
    expect(decodeJwt(String(body.access_token)).scope).toBeUndefined();
    const answer = await call(server, 'GET', '/users', { token: String(body.access_token) });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('insufficient_scope');
  });

  it('a client limited to API scopes only gets no admin scope either', async () => {
    const { clientId, clientSecret } = server.introspectionClient;
    await server.app.services.scopePolicies.setClientScopes(clientId, ['movies:read']);
    try {
      const { body } = await clientCredentials(server, 'admin:users:read', { clientId, clientSecret });
      expect(body.scope).toBeUndefined();
    } finally {
      await server.app.services.scopePolicies.setClientScopes(clientId, null);
    }
  });

  it('a request mixing API and admin scopes gets the API token; resource= names the admin audience to get the admin one', async () => {
    await server.app.services.scopePolicies.setClientScopes('admin-machine', ['movies:read', ...ADMIN_SCOPES]);
    try {
      const mixed = await clientCredentials(server, 'movies:read admin:users:read');
      expect(mixed.status).toBe(200);
      expect(mixed.body.scope).toBe('movies:read');
      const picked = await clientCredentials(server, 'movies:read admin:users:read', undefined, { resource: audience });
      expect(picked.status).toBe(200);
      expect(picked.body.scope).toBe('admin:users:read');
      expect(decodeJwt(String(picked.body.access_token)).aud).toBe(audience);
    } finally {
      await server.app.services.scopePolicies.setClientScopes('admin-machine', [...ADMIN_SCOPES]);
    }
  });

  it('a user outside group admins gets no admin scope in the code flow, even from a client listing them', async () => {
    const user = await server.createUser({ groups: ['editors'] });
    const { body } = await userTokens(server, user, 'openid admin:users:read admin:users:write', APP_TWO);
    expect(body.scope).toBe('openid');
    expect(decodeJwt(String(body.access_token)).scope).toBe('openid');
    const answer = await call(server, 'GET', '/users', { token: String(body.access_token) });
    expect(answer.status).toBe(403);
  });

  it('an admin gets them from a client listing them, and the token works at the admin API', async () => {
    const user = await server.createUser({ groups: ['admins'] });
    const { body } = await userTokens(server, user, 'openid admin:users:read admin:users:write admin:keys', APP_TWO);
    expect(body.scope).toBe('openid admin:users:read admin:users:write');
    const token = String(body.access_token);
    const claims = decodeJwt(token);
    expect(claims.aud).toBe(audience);
    expect(claims.scope).toBe('openid admin:users:read admin:users:write');
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const answer = await call(server, 'GET', '/users?limit=1', { token });
    expect(answer.status).toBe(200);
  });

  it('an admin signing in to a client without a limit gets no admin scope', async () => {
    const user = await server.createUser({ groups: ['admins'] });
    const { body } = await userTokens(server, user, 'openid admin:users:read', server.testClient);
    expect(body.scope).toBe('openid');
  });

  it('an admin removed from group admins loses the scopes of a token already issued', async () => {
    const user = await server.createUser({ groups: ['admins'] });
    const { body } = await userTokens(server, user, 'openid admin:users:read', APP_TWO);
    const token = String(body.access_token);
    expect((await call(server, 'GET', '/users?limit=1', { token })).status).toBe(200);
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    await server.app.services.accounts.update(account.id, { groups: ['editors'] });
    const refused = await call(server, 'GET', '/users?limit=1', { token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
  });

  it('a scope taken from the client stops working for tokens already issued, machine and user alike', async () => {
    const machine = String((await clientCredentials(server, 'admin:users:read admin:keys')).body.access_token);
    const user = await server.createUser({ groups: ['admins'] });
    const { body } = await userTokens(server, user, 'openid admin:users:read', APP_TWO);
    const person = String(body.access_token);
    expect((await call(server, 'GET', '/users?limit=1', { token: machine })).status).toBe(200);
    expect((await call(server, 'GET', '/users?limit=1', { token: person })).status).toBe(200);
    await server.app.services.scopePolicies.setClientScopes('admin-machine', ['admin:keys']);
    await server.app.services.scopePolicies.setClientScopes(APP_TWO.clientId, ['movies:read']);
    try {
      expect((await call(server, 'GET', '/users?limit=1', { token: machine })).status).toBe(403);
      expect((await call(server, 'GET', '/keys', { token: machine })).status).toBe(200);
      expect((await call(server, 'GET', '/users?limit=1', { token: person })).status).toBe(403);
      await server.app.services.scopePolicies.setClientScopes('admin-machine', null);
      expect((await call(server, 'GET', '/keys', { token: machine })).status).toBe(403);
    } finally {
      await server.app.services.scopePolicies.setClientScopes('admin-machine', [...ADMIN_SCOPES]);
      await server.app.services.scopePolicies.setClientScopes(APP_TWO.clientId, ['movies:read', 'admin:users:read', 'admin:users:write']);
    }
    expect((await call(server, 'GET', '/users?limit=1', { token: machine })).status).toBe(200);
  });

  it('discovery lists the admin scopes', async () => {
    const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as { scopes_supported: string[] };
    expect(doc.scopes_supported).toEqual(expect.arrayContaining([...ADMIN_SCOPES, 'movies:read', 'openid']));
  });

  it('authctl-style client scopes accept admin scopes but the access policy does not restrict them', async () => {
    await expect(server.app.services.scopePolicies.restrict('admin:users:read', ['ops'])).rejects.toMatchObject({ code: 'invalid_scope' });
    await expect(server.app.services.scopePolicies.setClientScopes('admin-machine', ['admin:nope'])).rejects.toMatchObject({ code: 'invalid_scope' });
  });
});
