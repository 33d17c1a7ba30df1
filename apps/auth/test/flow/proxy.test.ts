import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CookieJar, request, startServer, type TestAuthServer } from '../support/flow.ts';

describe('behind a TLS-terminating proxy', () => {
  let trusted: TestAuthServer;
  let untrusted: TestAuthServer;
  beforeAll(async () => {
    trusted = await startServer({ env: { TRUST_PROXY: 'true' } });
    untrusted = await startServer();
  });
  afterAll(async () => {
    await trusted.close();
    await untrusted.close();
  });

  it('with TRUST_PROXY, X-Forwarded-Proto https makes cookies Secure', async () => {
    const res = await request(new CookieJar({ 'x-forwarded-proto': 'https' }), authorizeUrl(trusted));
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('gh_auth_interaction='));
    expect(cookie).toMatch(/; secure; /);
  });

  it('with TRUST_PROXY, X-Forwarded-Host changes no URL while X-Forwarded-Proto still makes cookies Secure', async () => {
    const jar = new CookieJar({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example' });
    const page = await request(jar, authorizeUrl(trusted));
    expect(page.headers.getSetCookie().find((c) => c.startsWith('gh_auth_interaction='))).toMatch(/; secure; /);
    const discovery = await request(jar, `${trusted.issuer}/.well-known/openid-configuration`);
    expect(discovery.json()).toMatchObject({ issuer: trusted.issuer, jwks_uri: `${trusted.issuer}/oauth2/v1/keys` });
    expect(discovery.text).not.toContain('proxy.example');
  });

  it('without TRUST_PROXY the forwarded headers are ignored', async () => {
    const res = await request(new CookieJar({ 'x-forwarded-proto': 'https' }), authorizeUrl(untrusted));
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('gh_auth_interaction='));
    expect(cookie).not.toContain('secure');
  });
});
