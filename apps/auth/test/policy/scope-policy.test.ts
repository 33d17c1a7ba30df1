import { describe, expect, it } from 'vitest';
import { grantableScopes, type PolicyFacts } from '../../src/policy/scope-policy.ts';

const REQUESTED = ['movies:read', 'movies:write', 'customers:read'];
const policies = new Map([['movies:write', ['editors', 'admins']]]);

describe('grantableScopes (the access policy rules)', () => {
  it('without a client limit or a policy, everything asked for is granted (today\'s behaviour)', () => {
    expect(grantableScopes(REQUESTED, { clientScopes: null, policies: new Map() }, { kind: 'user', groups: [] })).toEqual(REQUESTED);
  });

  it('a restricted scope is left out for a user in none of its groups, kept for one in any of them', () => {
    const facts: PolicyFacts = { clientScopes: null, policies };
    expect(grantableScopes(REQUESTED, facts, { kind: 'user', groups: ['viewers'] })).toEqual(['movies:read', 'customers:read']);
    expect(grantableScopes(REQUESTED, facts, { kind: 'user', groups: [] })).toEqual(['movies:read', 'customers:read']);
    expect(grantableScopes(REQUESTED, facts, { kind: 'user', groups: ['viewers', 'admins'] })).toEqual(REQUESTED);
  });

  it('group names match exactly (no prefix or case folding)', () => {
    const facts: PolicyFacts = { clientScopes: null, policies };
    expect(grantableScopes(['movies:write'], facts, { kind: 'user', groups: ['Editors', 'editor', 'editors-old'] })).toEqual([]);
  });

  it('a client limit applies to users and to client_credentials alike, and wins over group membership', () => {
    const facts: PolicyFacts = { clientScopes: ['movies:read'], policies };
    expect(grantableScopes(REQUESTED, facts, { kind: 'user', groups: ['editors'] })).toEqual(['movies:read']);
    expect(grantableScopes(REQUESTED, facts, { kind: 'client' })).toEqual(['movies:read']);
    expect(grantableScopes(REQUESTED, { clientScopes: [], policies }, { kind: 'client' })).toEqual([]);
  });

  it('client_credentials (no user) skips the group rule', () => {
    expect(grantableScopes(REQUESTED, { clientScopes: null, policies }, { kind: 'client' })).toEqual(REQUESTED);
  });

  it('keeps the order asked for', () => {
    expect(grantableScopes(['customers:read', 'movies:read'], { clientScopes: ['movies:read', 'customers:read'], policies }, { kind: 'client' })).toEqual(['customers:read', 'movies:read']);
  });
});
