import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createClientStore } from '../../src/clients/client-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createScopePolicyStore } from '../../src/policy/scope-policy-store.ts';
import { createScopeGate } from '../../src/policy/scope-policy.ts';
import { createScopePolicyService, ScopePolicyError } from '../../src/policy/scope-policy-service.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const API_SCOPES = ['movies:read', 'movies:write', 'customers:read'];
const box = createSecretBox(Buffer.alloc(32, 1));

describe.each(TEST_ENGINES)('scope policy store and service on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const addClient = (clientId: string) => createClientStore(database.db, box).create({ clientId, redirectUris: [], grantTypes: ['client_credentials'] });

  it('sets, replaces, lists and clears scope policies', async () => {
    let now = 1_000;
    const store = createScopePolicyStore(database.db, () => now);
    expect(await store.list()).toEqual([]);
    await store.set('movies:write', ['editors']);
    now = 2_000;
    await store.set('customers:read', ['sales', 'admins']);
    await store.set('movies:write', ['editors', 'admins']);
    expect(await store.list()).toEqual([
      { scope: 'customers:read', groups: ['sales', 'admins'], updatedAt: 2_000 },
      { scope: 'movies:write', groups: ['editors', 'admins'], updatedAt: 2_000 },
    ]);
    expect(await store.clear('customers:read')).toBe(true);
    expect(await store.clear('customers:read')).toBe(false);
    expect((await store.list()).map((p) => p.scope)).toEqual(['movies:write']);
    await store.clear('movies:write');
  });

  it('a client may request any scope until limited; null lifts the limit; an unknown client is undefined', async () => {
    const store = createScopePolicyStore(database.db);
    await addClient('limited-client');
    expect(await store.clientScopes('limited-client')).toBeNull();
    expect(await store.setClientScopes('limited-client', ['movies:read'])).toBe(true);
    expect(await store.clientScopes('limited-client')).toEqual(['movies:read']);
    expect(await store.setClientScopes('limited-client', null)).toBe(true);
    expect(await store.clientScopes('limited-client')).toBeNull();
    expect(await store.clientScopes('nobody')).toBeUndefined();
    expect(await store.setClientScopes('nobody', ['movies:read'])).toBe(false);
    // The client registry still reads the row (the column is invisible to it).
    expect((await createClientStore(database.db, box).find('limited-client'))?.clientId).toBe('limited-client');
  });

  it('the service validates scopes, groups and clients with stable codes', async () => {
    const service = createScopePolicyService({ store: createScopePolicyStore(database.db), apiScopes: API_SCOPES });
    const refused = async (run: () => Promise<unknown>) => {
      const error = await run().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ScopePolicyError);
      return { code: (error as ScopePolicyError).code, message: (error as ScopePolicyError).message };
    };
    expect(await refused(() => service.restrict('openid', ['editors']))).toEqual({ code: 'invalid_scope', message: '"openid" is not an API scope (the API scopes are: movies:read, movies:write, customers:read)' });
    expect(await refused(() => service.restrict('movies:write', []))).toEqual({ code: 'invalid_groups', message: 'name at least one group' });
    expect(await refused(() => service.restrict('movies:write', ['two words']))).toEqual({ code: 'invalid_groups', message: 'group "two words" must be 1-64 characters without spaces or commas' });
    expect(await refused(() => service.clear('movies:write'))).toEqual({ code: 'no_policy', message: 'scope "movies:write" has no policy' });
    expect(await refused(() => service.setClientScopes('nobody', ['movies:read']))).toEqual({ code: 'unknown_client', message: 'unknown client "nobody"' });
    expect(await refused(() => service.clientScopes('nobody'))).toEqual({ code: 'unknown_client', message: 'unknown client "nobody"' });
    await addClient('svc-client');
    expect(await refused(() => service.setClientScopes('svc-client', []))).toEqual({ code: 'invalid_scope', message: 'name at least one API scope (or allow any)' });
    expect(await refused(() => service.setClientScopes('svc-client', ['movies:read', 'movies:delete']))).toEqual({
      code: 'invalid_scope',
      message: '"movies:delete" is not an API scope (the API scopes are: movies:read, movies:write, customers:read)',
    });
    expect(await service.clientScopes('svc-client')).toBeNull();

    expect(await service.restrict('movies:write', ['editors', 'editors', 'admins'])).toMatchObject({ scope: 'movies:write', groups: ['editors', 'admins'] });
    await service.setClientScopes('svc-client', ['movies:read', 'movies:read']);
    expect(await service.clientScopes('svc-client')).toEqual(['movies:read']);
    await service.clear('movies:write');
    expect(await service.list()).toEqual([]);
  });

  it('the gate combines the stored client limit, the stored policies and the account\'s groups', async () => {
    const store = createScopePolicyStore(database.db);
    const accounts = createAccountStore(database.db, box);
    const gate = createScopeGate({ policies: store, accounts });
    await addClient('gate-client');
    const editor = await accounts.create({ username: 'gate-editor', email: 'e@example.com', name: 'E', groups: ['editors'], passwordHash: 'h' });
    const viewer = await accounts.create({ username: 'gate-viewer', email: 'v@example.com', name: 'V', groups: ['viewers'], passwordHash: 'h' });
    await store.set('movies:write', ['editors']);
    try {
      expect(await gate.grantable(API_SCOPES, 'gate-client', editor.id)).toEqual(API_SCOPES);
      expect(await gate.grantable(API_SCOPES, 'gate-client', viewer.id)).toEqual(['movies:read', 'customers:read']);
      expect(await gate.grantable(API_SCOPES, 'gate-client', 'no-such-account')).toEqual(['movies:read', 'customers:read']);
      expect(await gate.grantable(API_SCOPES, 'gate-client', undefined)).toEqual(['movies:read', 'customers:read']);
      expect(await gate.grantable(API_SCOPES, 'gate-client', null)).toEqual(API_SCOPES);
      expect(await gate.grantable(API_SCOPES, 'no-such-client', null)).toEqual([]);
      // An account the request already read: its groups as given, no second read.
      expect(await gate.grantable(API_SCOPES, 'gate-client', { groups: ['editors'] })).toEqual(API_SCOPES);
      expect(await gate.grantable(API_SCOPES, 'gate-client', { groups: ['viewers'] })).toEqual(['movies:read', 'customers:read']);
      expect(await gate.grantable(API_SCOPES, 'gate-client', { groups: [] })).toEqual(['movies:read', 'customers:read']);
      // A client the request already read: its limit as given (null: any), no second read.
      expect(await gate.grantable(API_SCOPES, { clientId: 'gate-client', allowedScopes: null }, null)).toEqual(API_SCOPES);
      expect(await gate.grantable(API_SCOPES, { clientId: 'gate-client', allowedScopes: ['movies:read'] }, null)).toEqual(['movies:read']);
      expect(await gate.grantable(API_SCOPES, { clientId: 'gate-client', allowedScopes: [] }, { groups: ['editors'] })).toEqual([]);
      expect(await gate.grantable(API_SCOPES, { clientId: 'gate-client', allowedScopes: null }, { groups: ['viewers'] })).toEqual(['movies:read', 'customers:read']);
      await store.setClientScopes('gate-client', ['movies:write']);
      expect(await gate.grantable(API_SCOPES, 'gate-client', editor.id)).toEqual(['movies:write']);
      expect(await gate.grantable(API_SCOPES, 'gate-client', viewer.id)).toEqual([]);
      expect(await gate.grantable(API_SCOPES, 'gate-client', null)).toEqual(['movies:write']);
    } finally {
      await store.clear('movies:write');
    }
  });
});
