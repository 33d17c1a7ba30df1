/**
 * The access-policy service (admin/scope-admin.ts) on SQLite and PostgreSQL: each change is made
 * through the policy service and audited once with its actor, after it succeeded; a refusal
 * writes and audits nothing.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createScopeAdmin } from '../../src/admin/scope-admin.ts';
import type { Actor } from '../../src/audit/actor.ts';
import type { Auditor } from '../../src/audit/auditor.ts';
import { createClientStore } from '../../src/clients/client-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createScopePolicyStore } from '../../src/policy/scope-policy-store.ts';
import { createScopePolicyService, ScopePolicyError } from '../../src/policy/scope-policy-service.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const API_SCOPES = ['movies:read', 'movies:write'];
const ADMIN: Actor = { kind: 'account', accountId: 'acc-admin' };

describe.each(TEST_ENGINES)('scope admin on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const events: { event: string; fields: unknown }[] = [];
  const audit: Auditor = { record: (event, fields) => void events.push({ event, fields }) };
  const admin = () => createScopeAdmin({ policies: createScopePolicyService({ store: createScopePolicyStore(database.db, () => 5_000), apiScopes: API_SCOPES }), apiScopes: API_SCOPES, audit });

  it('sets and lifts a policy, audited with the actor and the groups as saved', async () => {
    events.length = 0;
    expect(admin().apiScopes()).toEqual(API_SCOPES);
    expect(await admin().restrict(ADMIN, 'movies:write', ['editors', 'editors', 'admins'])).toEqual({ scope: 'movies:write', groups: ['editors', 'admins'], updatedAt: 5_000 });
    expect(await admin().list()).toEqual([{ scope: 'movies:write', groups: ['editors', 'admins'], updatedAt: 5_000 }]);
    await admin().clear(ADMIN, 'movies:write');
    expect(await admin().list()).toEqual([]);
    expect(events).toEqual([
      { event: 'admin.scope.policy_set', fields: { actor_kind: 'account', actor: 'acc-admin', scope: 'movies:write', groups: 'editors,admins' } },
      { event: 'admin.scope.policy_cleared', fields: { actor_kind: 'account', actor: 'acc-admin', scope: 'movies:write' } },
    ]);
  });

  it("sets and lifts a client's allowed scopes, audited", async () => {
    events.length = 0;
    await createClientStore(database.db, createSecretBox(Buffer.alloc(32, 3))).create({ clientId: 'svc', redirectUris: [], grantTypes: ['client_credentials'] });
    await admin().setClientScopes(ADMIN, 'svc', ['movies:read', 'admin:keys', 'movies:read']);
    expect(await admin().clientScopes('svc')).toEqual(['movies:read', 'admin:keys']);
    await admin().setClientScopes(ADMIN, 'svc', null);
    expect(await admin().clientScopes('svc')).toBeNull();
    expect(events).toEqual([
      { event: 'admin.client.scopes_set', fields: { actor_kind: 'account', actor: 'acc-admin', client_id: 'svc', scopes: 'movies:read admin:keys' } },
      { event: 'admin.client.scopes_set', fields: { actor_kind: 'account', actor: 'acc-admin', client_id: 'svc', scopes: '*' } },
    ]);
  });

  it('a refusal changes and audits nothing', async () => {
    events.length = 0;
    const refusal = async (promise: Promise<unknown>) => {
      const error = await promise.then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ScopePolicyError);
      return { code: (error as ScopePolicyError).code, message: (error as ScopePolicyError).message };
    };
    expect(await refusal(admin().restrict(ADMIN, 'movies:delete', ['editors']))).toEqual({ code: 'invalid_scope', message: '"movies:delete" is not an API scope (the API scopes are: movies:read, movies:write)' });
    expect(await refusal(admin().restrict(ADMIN, 'movies:read', ['two words']))).toEqual({ code: 'invalid_groups', message: 'group "two words" must be 1-64 characters without spaces or commas' });
    expect(await refusal(admin().clear(ADMIN, 'movies:read'))).toEqual({ code: 'no_policy', message: 'scope "movies:read" has no policy' });
    expect(await refusal(admin().setClientScopes(ADMIN, 'ghost', null))).toEqual({ code: 'unknown_client', message: 'unknown client "ghost"' });
    expect(await refusal(admin().setClientScopes(ADMIN, 'svc', []))).toEqual({ code: 'invalid_scope', message: 'name at least one API scope (or allow any)' });
    expect(await admin().list()).toEqual([]);
    expect(events).toEqual([]);
  });
});
