import { describe, expect, it } from 'vitest';
import { ADMIN_SCOPES, adminAudience, isAdminScope } from '../../src/policy/admin-scopes.ts';
import { grantableScopes, type PolicyFacts } from '../../src/policy/scope-policy.ts';

const ADMIN = [...ADMIN_SCOPES];

describe('admin scopes in the access policy (closed by default)', () => {
  it('a client without a limit gets none, for a user in admins or for itself', () => {
    const facts: PolicyFacts = { clientScopes: null, policies: new Map() };
    expect(grantableScopes([...ADMIN, 'movies:read'], facts, { kind: 'client' })).toEqual(['movies:read']);
    expect(grantableScopes([...ADMIN, 'movies:read'], facts, { kind: 'user', groups: ['admins'] })).toEqual(['movies:read']);
  });

  it('a client listing some gets exactly those; a user also needs group admins (exact name)', () => {
    const facts: PolicyFacts = { clientScopes: ['admin:users:read', 'admin:keys', 'movies:read'], policies: new Map() };
    expect(grantableScopes(ADMIN, facts, { kind: 'client' })).toEqual(['admin:users:read', 'admin:keys']);
    expect(grantableScopes(ADMIN, facts, { kind: 'user', groups: ['admins'] })).toEqual(['admin:users:read', 'admin:keys']);
    expect(grantableScopes(ADMIN, facts, { kind: 'user', groups: ['Admins', 'admin', 'editors'] })).toEqual([]);
    expect(grantableScopes(ADMIN, facts, { kind: 'user', groups: [] })).toEqual([]);
  });

  it('a group policy naming an admin scope does not open it to that group', () => {
    const facts: PolicyFacts = { clientScopes: ['admin:users:write'], policies: new Map([['admin:users:write', ['editors']]]) };
    expect(grantableScopes(['admin:users:write'], facts, { kind: 'user', groups: ['editors'] })).toEqual([]);
  });

  it('names and audience', () => {
    expect(ADMIN).toEqual(['admin:users:read', 'admin:users:write', 'admin:clients:write', 'admin:keys', 'admin:audit:read', 'admin:identity-providers:write']);
    expect(ADMIN.every(isAdminScope)).toBe(true);
    expect(['admin', 'admin:users', 'movies:read', 'ADMIN:KEYS', 'constructor'].some(isAdminScope)).toBe(false);
    expect(adminAudience('https://id.example')).toBe('https://id.example/admin/v1');
  });
});
