/**
 * Entra ID's tenant-specific `iss`: a `microsoft` provider with tenant `organizations` reads
 * discovery at https://login.microsoftonline.com/organizations/v2.0, whose issuer is the template
 * https://login.microsoftonline.com/{tenantid}/v2.0, and each ID token's `iss` names the user's
 * tenant (`tid`). The upstream is a real oidc-provider the test starts, answering as Entra would
 * (issuer of tenant A, discovery with `{tenantid}`, ID tokens with `tid`); the
 * login.microsoftonline.com host is routed to it by the fetch Gatehouse is given (createApp deps).
 * A token of an allowed tenant is accepted; an `iss` that is not its `tid`'s, or a tenant outside
 * `allowedTenants`, is refused with the invalid_upstream_response page, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { federatedCallbackUrl } from '../../src/federation/callback-url.ts';
import { authorizeUrl, basic, CookieJar, form, request, startServer, type TestAuthServer } from '../support/flow.ts';
import type { HttpResponse } from '../support/cookie-jar.ts';
import { startUpstreamOidc, type UpstreamOidc, type UpstreamUser } from '../support/upstream-oidc.ts';
import { providerRegistry, uidIn, upstreamSignIn } from '../support/federation.ts';

const ENTRA = 'https://login.microsoftonline.com';
const TENANT_A = '9188040d-6c67-4c5b-b112-36a304b66dad';
const TENANT_B = '72f988bf-86f1-41af-91ab-2d7cd011db47';

describe('federated sign-in with Entra ID (microsoft preset, tenant organizations)', () => {
  let server: TestAuthServer;
  let upstream: UpstreamOidc;

  beforeAll(async () => {
    // Entra's host, routed to the upstream the test starts; everything else as usual.
    const routed: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return url.origin === ENTRA ? fetch(`${upstream.origin}${url.pathname}${url.search}`, init) : fetch(input, init);
    };
    server = await startServer({ fetch: routed });
    upstream = await startUpstreamOidc({
      redirectUris: [federatedCallbackUrl(server.issuer, 'entra'), federatedCallbackUrl(server.issuer, 'entra-b')],
      // It signs as tenant A's issuer, and its discovery says what Entra's multi-tenant one says.
      issuer: `${ENTRA}/${TENANT_A}/v2.0`,
      discovery: { path: '/organizations/v2.0/.well-known/openid-configuration', issuer: `${ENTRA}/{tenantid}/v2.0` },
    });
    const registry = providerRegistry(server.app.services.identityProviderStore);
    const common = { preset: 'microsoft' as const, tenant: 'organizations', clientId: upstream.client.clientId, clientSecret: upstream.client.clientSecret };
    await registry.create(CLI_OPERATOR, { ...common, slug: 'entra', displayName: 'Contoso', allowedTenants: [TENANT_A, TENANT_B] });
    await registry.create(CLI_OPERATOR, { ...common, slug: 'entra-b', displayName: 'Fabrikam', allowedTenants: [TENANT_B] });
  });
  afterAll(async () => {
    await upstream.close();
    await server.close();
  });

  /** From the app's authorization request to Gatehouse's answer to the upstream's callback. */
  async function federate(user: Pick<UpstreamUser, 'username' | 'password'>, slug: string) {
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    const start = await request(jar, `${server.issuer}/login/federated/${slug}`, { method: 'POST', ...form({ uid: uidIn(page.text) }) });
    expect(start.status).toBe(303);
    const authorization = new URL(start.location!);
    // Discovery named Entra's authorization endpoint; the "browser" reaches it at the test's upstream.
    expect(authorization.origin).toBe(ENTRA);
    const callback = new URL(await upstreamSignIn(new CookieJar(), `${upstream.origin}${authorization.pathname}${authorization.search}`, user));
    // Entra sends no `iss` in the authorization response (no RFC 9207); oidc-provider sends its own.
    callback.searchParams.delete('iss');
    return { jar, answer: await request(jar, callback.href) };
  }

  async function tokensAfter(jar: CookieJar, answer: HttpResponse): Promise<{ id: Record<string, unknown> }> {
    // The upstream's MFA is trusted (preset: amr mfa): a page resumes the authorization.
    expect(answer.status, answer.text).toBe(200);
    const action = /<form id="form-post" method="get" action="([^"]+)">/.exec(answer.text)?.[1];
    expect(action).toMatch(/^\/oauth2\/v1\/authorize\/[\w-]+$/);
    const redirect = await request(jar, `${server.issuer}${action}`);
    const code = new URL(redirect.location!).searchParams.get('code');
    expect(code).toBeTruthy();
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: server.testClient.redirectUri }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id_token: string };
    return { id: decodeJwt(body.id_token) };
  }

  it('accepts the ID token of an allowed tenant, whose iss is its tid’s', async () => {
    const ann = upstream.addUser({ username: 'ann@contoso.test', email: 'ann@contoso.test', emailVerified: true, amr: ['pwd', 'mfa'], extraClaims: { tid: TENANT_A } });
    const { jar, answer } = await federate(ann, 'entra');
    const { id } = await tokensAfter(jar, answer);
    const account = await server.app.services.accounts.findByUsername('ann@contoso.test');
    expect(account).toBeDefined();
    expect(await server.app.services.accountLinks.find('entra', ann.sub)).toMatchObject({ accountId: account!.id });
    expect(id).toMatchObject({ sub: account!.id, iss: server.issuer, amr: ['fed', 'mfa'], acr: 'urn:gatehouse:loa:mfa' });
  });

  it('refuses an ID token whose iss is not the tenant its tid names', async () => {
    // Tenant B is allowed, but the token is signed with tenant A's issuer.
    const ben = upstream.addUser({ username: 'ben@fabrikam.test', email: 'ben@fabrikam.test', emailVerified: true, amr: ['pwd', 'mfa'], extraClaims: { tid: TENANT_B } });
    const { answer } = await federate(ben, 'entra');
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('Error code: <code>invalid_upstream_response</code>');
    expect(answer.text).toContain('failed Gatehouse&#39;s security checks');
    expect(await server.app.services.accounts.findByUsername('ben@fabrikam.test')).toBeUndefined();
    expect(await server.app.services.accountLinks.find('entra', ben.sub)).toBeUndefined();
  });

  it('refuses a user of a tenant outside allowedTenants, though its iss and tid agree', async () => {
    const cleo = upstream.addUser({ username: 'cleo@contoso.test', email: 'cleo@contoso.test', emailVerified: true, amr: ['pwd', 'mfa'], extraClaims: { tid: TENANT_A } });
    const { answer } = await federate(cleo, 'entra-b');
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('Error code: <code>invalid_upstream_response</code>');
    expect(await server.app.services.accounts.findByUsername('cleo@contoso.test')).toBeUndefined();
    expect(await server.app.services.accountLinks.find('entra-b', cleo.sub)).toBeUndefined();
  });
});
