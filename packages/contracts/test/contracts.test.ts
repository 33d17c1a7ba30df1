import { describe, expect, it } from 'vitest';
import { AccessTokenClaims, IdTokenClaims, parseScope, TokenResponse, DEFAULT_API_SCOPES } from '../src/index.ts';

describe('contracts', () => {
  it('accepts the docs/spec.md §2.3 token response and refuses a non-Bearer type', () => {
    const ok = { access_token: 'a', token_type: 'Bearer', expires_in: 3600, scope: 'openid', id_token: 'i', refresh_token: 'r' };
    expect(TokenResponse.parse(ok)).toEqual(ok);
    expect(TokenResponse.safeParse({ ...ok, token_type: 'mac' }).success).toBe(false);
  });

  it('requires groups and amr in the ID token, and client_id in the access token', () => {
    const id = { iss: 'http://localhost:3000', sub: 'u1', aud: 'app-one', exp: 2, iat: 1, email: 'ada@example.com', name: 'A', groups: [], amr: ['pwd', 'otp'] };
    expect(IdTokenClaims.parse(id)).toEqual(id);
    expect(IdTokenClaims.safeParse({ ...id, amr: [] }).success).toBe(false);
    const at = { iss: 'http://localhost:3000', sub: 'u1', aud: 'x', exp: 2, iat: 1, scope: 'a', client_id: 'c', groups: ['g'], jti: 'j' };
    expect(AccessTokenClaims.parse(at)).toEqual(at);
    expect(AccessTokenClaims.safeParse({ ...at, client_id: undefined }).success).toBe(false);
  });

  it('parses scopes and names the default API scopes', () => {
    expect(parseScope(' openid  email openid ')).toEqual(['openid', 'email']);
    expect(DEFAULT_API_SCOPES).toContain('movies:read');
    expect(DEFAULT_API_SCOPES).toContain('users:write');
    expect(DEFAULT_API_SCOPES).toHaveLength(8);
  });
});
