import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { AccessTokenClaims, IdTokenClaims, TokenResponse } from '@gatehouse/contracts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { hashPassword } from '../../src/accounts/password.ts';
import { authorizeUrl, codeFrom, CookieJar, decodeProtectedHeader, exchange, form, pkcePair, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

// docs/spec.md §4.2 "Login operations", step by step over HTTP with a cookie jar, for a user with no TOTP yet,
// on the embedded SQLite default and on PostgreSQL.
describe.each(TEST_ENGINES)('the seed login flow on %s', (engine) => {
  let server: TestAuthServer;
  const jar = new CookieJar();
  const state = 'st-4f1c:"<x>';
  const nonce = 'n-0S6_WzA2Mj';
  const { verifier, challenge } = pkcePair();
  let uid = '';
  let totpSecret = '';
  let location = '';
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    server = await startServer({ engine });
    await server.app.services.accounts.create({
      username: 'alice',
      email: 'alice@example.com',
      name: 'Alice Liddell',
      groups: ['admins', 'users'],
      passwordHash: await hashPassword('correct horse battery'),
    });
  });
  afterAll(() => server.close());

  it('GET /oauth2/v1/authorize without a session answers 200 with the login page', async () => {
    const res = await request(jar, authorizeUrl(server, { state, nonce, challenge }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toContain('<form method="post" action="/login"');
    expect(res.text).toContain('to continue to <strong>Test App</strong>');
    // Password managers and paste work (docs/security.md, ASVS 2.1.11): the fields say what they
    // hold, and nothing turns autocomplete off or intercepts paste.
    expect(res.text).toMatch(/<input id="username" name="username" autocomplete="username[^"]*"/);
    expect(res.text).toMatch(/<input id="password" name="password" type="password" autocomplete="current-password"/);
    expect(res.text).not.toMatch(/autocomplete="off"|onpaste|oncopy/i);
    uid = uidOf(res.text);
    const cookies = res.headers.getSetCookie();
    const interaction = cookies.find((c) => c.startsWith('gh_auth_interaction='));
    const resume = cookies.find((c) => c.startsWith('gh_auth_resume='));
    expect(interaction).toMatch(/; path=\/; .*samesite=lax; httponly/);
    expect(resume).toMatch(/; path=\/; .*samesite=lax; httponly/);
    expect(interaction).toContain(`gh_auth_interaction=${uid};`);
  });

  it('POST /login with username and password answers 200 with the second-factor page (TOTP enrollment)', async () => {
    const res = await request(jar, `${server.issuer}/login`, {
      method: 'POST',
      ...form({ uid, username: 'alice', password: 'correct horse battery' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<form method="post" action="/mfa/verify"');
    expect(res.text).toContain('Set up two-step verification');
    // Chromium applies form-action to the redirect that follows the post: the client's origin must be allowed.
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    expect(res.text).toContain('<svg');
    const secret = /<code id="totp-secret" class="totp-key" data-value="([A-Z2-7]+)">/.exec(res.text);
    expect(secret).not.toBeNull();
    totpSecret = secret![1]!;
    // Recovery codes come only after the app is proven to work.
    expect(res.text).not.toContain('Save your recovery codes');
  });

  it('POST /mfa/verify with a valid code answers 302 to the redirect URI with code and the unchanged state, and sets the session cookie', async () => {
    const code = await server.app.services.totp.generate(totpSecret, Date.now());
    const codesPage = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(codesPage.status).toBe(200);
    expect(codesPage.text).toContain('Save your recovery codes');
    expect(codesPage.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    recoveryCodes = [...codesPage.text.matchAll(/<li><code>([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const res = await request(jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...form({ uid }) });
    expect(res.status).toBe(302);
    location = res.location!;
    const target = new URL(location);
    expect(`${target.origin}${target.pathname}`).toBe(server.testClient.redirectUri);
    expect(target.searchParams.get('state')).toBe(state);
    expect(target.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    expect(target.searchParams.get('iss')).toBe(server.issuer);
    const session = res.headers.getSetCookie().find((c) => c.startsWith('gh_auth_session='));
    expect(session).toMatch(/; path=\/; samesite=lax; httponly; expires=/);
    const expires = Date.parse(/expires=([^;]+)/.exec(session!)![1]!);
    expect(Math.round((expires - Date.now()) / 60_000)).toBe(240);
    const account = await server.app.services.accounts.findByUsername('alice');
    expect(account?.totpEnrolled).toBe(true);
    expect(await server.app.services.accounts.getTotpSecret(account!.id)).toBe(totpSecret);
    // The codes shown after the enrollment are the account's now, stored hashed.
    expect(await server.app.services.recoveryCodes.remaining(account!.id)).toBe(10);
  });

  it('POST /oauth2/v1/token answers 200 JSON with the docs/spec.md §2.3 token response and valid ID and access tokens', async () => {
    const res = await exchange(server, codeFrom(location), { code_verifier: verifier });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = TokenResponse.parse(res.body);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe('openid profile email movies:read');

    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    const id = await jwtVerify(body.id_token!, jwks, { issuer: server.issuer, audience: server.testClient.clientId });
    const claims = IdTokenClaims.parse(id.payload);
    const account = await server.app.services.accounts.findByUsername('alice');
    expect(claims).toMatchObject({
      iss: server.issuer,
      sub: account!.id,
      aud: 'test-app',
      nonce,
      email: 'alice@example.com',
      name: 'Alice Liddell',
      groups: ['admins', 'users'],
      amr: ['pwd', 'otp'],
    });
    // The session's authentication context class and methods, exactly (spec §2.4).
    expect(id.payload.acr).toBe('urn:gatehouse:loa:mfa');
    expect(id.payload.amr).toEqual(['pwd', 'otp']);
    expect(claims.exp - claims.iat).toBe(3600);

    expect(decodeProtectedHeader(body.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    const at = await jwtVerify(body.access_token, jwks, { issuer: server.issuer, audience: server.audience, typ: 'at+jwt' });
    const access = AccessTokenClaims.parse(at.payload);
    expect(access).toMatchObject({ sub: account!.id, aud: server.audience, scope: 'openid profile email movies:read', client_id: 'test-app', groups: ['admins', 'users'] });
    expect(access.exp - access.iat).toBe(3600);
  });

  it('a recovery code from the enrollment page works once in place of a TOTP code', async () => {
    const signInWithRecovery = async (code: string) => {
      const browser = new CookieJar();
      const page = await request(browser, authorizeUrl(server));
      const flowUid = uidOf(page.text);
      const mfa = await request(browser, `${server.issuer}/login`, { method: 'POST', ...form({ uid: flowUid, username: 'alice', password: 'correct horse battery' }) });
      expect(mfa.text).toContain('Use a recovery code');
      expect(mfa.text).not.toContain('Save your recovery codes');
      return request(browser, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid: flowUid, method: 'recovery', code }) });
    };
    const first = await signInWithRecovery(recoveryCodes[3]!.toUpperCase());
    expect(first.status).toBe(302);
    expect(new URL(first.location!).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    const again = await signInWithRecovery(recoveryCodes[3]!);
    expect(again.status).toBe(401);
    expect(again.text).toContain('That recovery code was already used.');
  });
});
