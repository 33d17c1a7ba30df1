/**
 * Sign-in with an upstream OpenID Connect provider, against a real one the test starts (an
 * oidc-provider instance with its own users and login page, test/support/upstream-oidc.ts):
 * first sign-in with just-in-time provisioning and group mapping into the access token, the
 * returning user found by the link alone (never by e-mail), the upstream's MFA trusted or a
 * Gatehouse factor asked, linking that requires the local password and second factor, and each
 * refusal a page with the way on: state and nonce refused, unverified e-mail, access_denied,
 * expired attempt, invited-only, upstream down. No secret reaches the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { federatedCallbackUrl } from '../../src/federation/callback-url.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { authorizeUrl, basic, CookieJar, form, request, startServer, type TestAuthServer } from '../support/flow.ts';
import type { HttpResponse } from '../support/cookie-jar.ts';
import { startUpstreamOidc, type UpstreamOidc, type UpstreamUser } from '../support/upstream-oidc.ts';
import { providerRegistry, uidIn, upstreamSignIn } from '../support/federation.ts';

describe('federated sign-in with an upstream OpenID Connect provider', () => {
  let server: TestAuthServer;
  let upstream: UpstreamOidc;
  const clock = { now: Date.now() };
  const lines: string[] = [];

  beforeAll(async () => {
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
    server = await startServer({ clock: () => clock.now, logger });
    upstream = await startUpstreamOidc({ redirectUris: [federatedCallbackUrl(server.issuer, 'acme'), federatedCallbackUrl(server.issuer, 'acme-invited')] });
    await providerRegistry(server.app.services.identityProviderStore).create(CLI_OPERATOR, {
      slug: 'acme',
      displayName: 'Acme SSO',
      issuer: upstream.issuer,
      clientId: upstream.client.clientId,
      clientSecret: upstream.client.clientSecret,
      scopes: ['openid', 'email', 'profile', 'groups'],
      claims: { groups: 'groups' },
      groupMappings: [
        { upstream: 'acme-admins', group: 'admins' },
        { upstream: 'acme-staff', group: 'staff' },
      ],
      mfaPolicy: 'trust_upstream',
      mfaAcceptedAmr: ['mfa'],
      homeRealmDomains: ['acme.test'],
    });
  });
  afterAll(async () => {
    await upstream.close();
    await server.close();
  });

  async function exchange(location: string): Promise<{ access: Record<string, unknown>; id: Record<string, unknown> }> {
    const redirect = new URL(location);
    expect(redirect.origin + redirect.pathname).toBe(server.testClient.redirectUri);
    const code = redirect.searchParams.get('code');
    expect(code).toBeTruthy();
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: server.testClient.redirectUri }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { access_token: string; id_token: string };
    return { access: decodeJwt(body.access_token), id: decodeJwt(body.id_token) };
  }

  /** The amr and acr of the SSO sessions of the account (oidc-provider's Session rows). */
  async function sessionsOf(accountId: string): Promise<{ amr?: string[]; acr?: string }[]> {
    const rows = await server.database.db.selectFrom('oidc_payloads').select('payload').where('model', '=', 'Session').execute();
    return rows
      .map((row) => JSON.parse(row.payload) as { accountId?: string; amr?: string[]; acr?: string })
      .filter((session) => session.accountId === accountId)
      .map(({ amr, acr }) => ({ ...(amr ? { amr } : {}), ...(acr ? { acr } : {}) }));
  }

  function auditOf(event: string): Record<string, unknown>[] {
    return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit === true && line.event === event);
  }

  /**
   * The page that ends a sign-in the upstream's MFA completed: it resumes the authorization by a
   * navigation of its own (a GET form its script submits); following it gives the 302 to the app.
   */
  async function resumed(jar: CookieJar, answer: HttpResponse): Promise<string> {
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).toContain('<script src="/static/form-post.js" defer></script>');
    const action = /<form id="form-post" method="get" action="([^"]+)">/.exec(answer.text)?.[1];
    expect(action).toMatch(/^\/oauth2\/v1\/authorize\/[\w-]+$/);
    const redirect = await request(jar, `${server.issuer}${action}`);
    expect([302, 303]).toContain(redirect.status);
    return redirect.location!;
  }

  /** From the app's authorization request to Gatehouse's answer to the upstream's callback. */
  async function federate(user: Pick<UpstreamUser, 'username' | 'password'> | 'cancel', jar = new CookieJar(), slug = 'acme') {
    const page = await request(jar, authorizeUrl(server));
    expect(page.status).toBe(200);
    const uid = uidIn(page.text);
    const start = await request(jar, `${server.issuer}/login/federated/${slug}`, { method: 'POST', ...form({ uid }) });
    expect(start.status).toBe(303);
    const callback = await upstreamSignIn(new CookieJar(), start.location!, user);
    const answer = await request(jar, callback);
    return { jar, uid, start, callback, answer };
  }

  it('shows one button per enabled provider on the login page, and lets its form go to the provider', async () => {
    const page = await request(new CookieJar(), authorizeUrl(server));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="/login/federated/acme">`);
    expect(page.text).toContain('>Continue with Acme SSO</button>');
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${server.testClient.redirectUri.replace('/callback', '')} ${upstream.issuer}`);
  });

  it('provisions a new user on the first sign-in, maps the groups into the access token and trusts the upstream MFA', async () => {
    const alice = upstream.addUser({ username: 'Alice.Upstream', email: 'alice@acme.test', emailVerified: true, name: 'Alice Up', groups: ['acme-admins', 'acme-other'], amr: ['pwd', 'mfa'] });
    const { jar, start, answer } = await federate(alice);
    const authorization = new URL(start.location!);
    expect(authorization.origin).toBe(upstream.issuer);
    expect(Object.fromEntries([...authorization.searchParams.keys()].map((k) => [k, true]))).toMatchObject({ state: true, nonce: true, code_challenge: true });
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('redirect_uri')).toBe(federatedCallbackUrl(server.issuer, 'acme'));
    expect(authorization.searchParams.get('scope')).toBe('openid email profile groups');

    const { access, id } = await exchange(await resumed(jar, answer));
    expect(access.groups).toEqual(['admins']);
    expect(id.amr).toEqual(['fed', 'mfa']);
    expect(id.acr).toBe('urn:gatehouse:loa:mfa');
    const account = await server.app.services.accounts.findByUsername('alice.upstream');
    expect(await sessionsOf(account!.id)).toEqual([{ amr: ['fed', 'mfa'], acr: 'urn:gatehouse:loa:mfa' }]);
    expect(account).toMatchObject({ username: 'alice.upstream', email: 'alice@acme.test', name: 'Alice Up', groups: ['admins'], passwordHash: '!no-password' });
    expect(id.sub).toBe(account!.id);
    expect(await server.app.services.accountLinks.find('acme', alice.sub)).toMatchObject({ accountId: account!.id });
    await server.app.flushAudit();
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit === true && line.account_id === account!.id);
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['account.provisioned', 'login.federated']));
    expect(events.find((e) => e.event === 'login.federated')).toMatchObject({ provider: 'acme', upstream_mfa: true });
  });

  it('finds a returning user by the link alone: a new email upstream changes nothing, and another upstream user with the same email is not let in', async () => {
    const bob = upstream.addUser({ username: 'bob', email: 'bob@acme.test', emailVerified: true, name: 'Bob', groups: ['acme-staff'], amr: ['pwd', 'mfa'] });
    const first = await federate(bob);
    await resumed(first.jar, first.answer);
    const account = await server.app.services.accounts.findByUsername('bob');
    expect(account?.groups).toEqual(['staff']);
    clock.now += 60_000;
    bob.email = 'robert@elsewhere.test';
    const again = await federate(bob);
    const { id } = await exchange(await resumed(again.jar, again.answer));
    expect(id.sub).toBe(account!.id);
    expect(await server.app.services.accountLinks.find('acme', bob.sub)).toMatchObject({ accountId: account!.id, lastUsedAt: clock.now });
    expect((await server.app.services.accounts.page({ search: 'bob', limit: 10 })).map((a) => a.username)).toEqual(['bob']);

    // Another upstream user claiming bob's address: never signed in as bob; offered to prove bob's account instead.
    const impostor = upstream.addUser({ username: 'not-bob', email: 'bob@acme.test', emailVerified: true, amr: ['pwd', 'mfa'] });
    const { answer } = await federate(impostor);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<h1>Link your account</h1>');
    expect(answer.text).toContain('<strong class="account-name">bob</strong>');
    expect(answer.headers.get('location')).toBeNull();
    expect(await server.app.services.accountLinks.find('acme', impostor.sub)).toBeUndefined();
  });

  it('asks for a Gatehouse factor when the upstream did not do MFA: the new account enrolls TOTP, and the session says fed + otp', async () => {
    const carol = upstream.addUser({ username: 'carol', email: 'carol@acme.test', emailVerified: true, amr: ['pwd'] });
    const { jar, uid, answer } = await federate(carol);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<title>Two-step verification · Gatehouse</title>');
    const secret = /name="secret" value="([A-Z2-7]+)"|<code[^>]*id="totp-secret"[^>]*data-value="([A-Z2-7]+)"/.exec(answer.text);
    const account = await server.app.services.accounts.findByUsername('carol');
    expect(account).toBeDefined();
    expect(await sessionsOf(account!.id)).toEqual([]);
    const totpSecret = secret?.[1] ?? secret?.[2] ?? /secret=([A-Z2-7]+)/.exec(decodeURIComponent(answer.text))?.[1];
    expect(totpSecret).toBeTruthy();
    const code = await server.app.services.totp.generate(totpSecret!, clock.now);
    const codes = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(codes.status).toBe(200);
    expect(codes.text).toContain('Save your recovery codes');
    const done = await request(jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...form({ uid }) });
    expect(done.status).toBe(302);
    const { id } = await exchange(done.location!);
    expect(id.amr).toEqual(['fed', 'otp']);
    expect(id.acr).toBe('urn:gatehouse:loa:mfa');
    expect(await sessionsOf(account!.id)).toEqual([{ amr: ['fed', 'otp'], acr: 'urn:gatehouse:loa:mfa' }]);
  });

  it('links an existing local account only after its password and its second factor', async () => {
    const local = await server.createUser({ username: 'dana', email: 'dana@acme.test', groups: ['locals'] });
    const dana = upstream.addUser({ username: 'dana-up', email: 'dana@acme.test', emailVerified: true, amr: ['pwd', 'mfa'] });
    const { jar, uid, answer } = await federate(dana);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<strong class="account-name">dana</strong>');
    expect(answer.text).toContain('id="federated-create"');

    const linkPage = await request(jar, `${server.issuer}/login/federated-choice`, { method: 'POST', ...form({ uid, choice: 'link' }) });
    expect(linkPage.status).toBe(200);
    expect(linkPage.text).toContain('Sign in to your Gatehouse account to link it with Acme SSO.');
    expect(linkPage.text).toContain('value="dana"');
    expect(linkPage.text).not.toContain('id="passkey-login"');

    const wrong = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: 'dana', password: 'not-her-password' }) });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Sign in to your Gatehouse account to link it with Acme SSO.');
    const passwordOk = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: 'dana', password: local.password }) });
    expect(passwordOk.status).toBe(200);
    // The password alone links nothing.
    expect(await server.app.services.accountLinks.find('acme', dana.sub)).toBeUndefined();
    const badCode = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: '000000' }) });
    expect(badCode.status).toBe(401);
    expect(await server.app.services.accountLinks.find('acme', dana.sub)).toBeUndefined();
    const code = await server.app.services.totp.generate(local.totpSecret, clock.now);
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(done.status).toBe(302);
    const account = await server.app.services.accounts.findByUsername('dana');
    expect(await server.app.services.accountLinks.find('acme', dana.sub)).toMatchObject({ accountId: account!.id });
    await server.app.flushAudit();
    expect(auditOf('account.linked').at(-1)).toMatchObject({ account_id: account!.id, provider: 'acme', via: 'sign_in' });

    // From now on the upstream sign-in alone signs dana in, with her local groups.
    const next = await federate(dana);
    const { access, id } = await exchange(await resumed(next.jar, next.answer));
    expect(id.sub).toBe(account!.id);
    expect(access.groups).toEqual(['locals']);
  });

  it('refuses a callback whose state is not the attempt’s, then the attempt is used up', async () => {
    const erin = upstream.addUser({ username: 'erin', email: 'erin@acme.test', emailVerified: true, amr: ['mfa'] });
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const uid = uidIn(page.text);
    const start = await request(jar, `${server.issuer}/login/federated/acme`, { method: 'POST', ...form({ uid }) });
    const callback = new URL(await upstreamSignIn(new CookieJar(), start.location!, erin));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const refused = await request(jar, forged.href);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Error code: <code>state_mismatch</code>');
    expect(refused.text).toContain('id="federated-retry"');
    expect(refused.text).toContain('id="federated-back"');
    const replay = await request(jar, callback.href);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('Error code: <code>attempt_expired</code>');
    expect(await server.app.services.accounts.findByUsername('erin')).toBeUndefined();
  });

  it('refuses an ID token whose nonce is not the attempt’s', async () => {
    const frank = upstream.addUser({ username: 'frank', email: 'frank@acme.test', emailVerified: true, amr: ['mfa'] });
    upstream.tamperNonce('a-nonce-of-another-sign-in');
    const { answer } = await federate(frank);
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('Error code: <code>invalid_upstream_response</code>');
    expect(answer.text).toContain('failed Gatehouse&#39;s security checks');
    expect(await server.app.services.accounts.findByUsername('frank')).toBeUndefined();
  });

  it('refuses to create an account from an unverified email, and says so', async () => {
    const gina = upstream.addUser({ username: 'gina', email: 'gina@acme.test', emailVerified: false, amr: ['mfa'] });
    const { answer } = await federate(gina);
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('Error code: <code>unverified_email</code>');
    expect(answer.text).toContain('did not confirm that your email address gina@acme.test is verified');
    expect(await server.app.services.accounts.findByUsername('gina')).toBeUndefined();
    await server.app.flushAudit();
    expect(auditOf('login.federated.failure').at(-1)).toMatchObject({ provider: 'acme', reason: 'unverified_email' });
  });

  it('says the user cancelled at the provider (access_denied), and “Back to the app” ends the authorization with access_denied', async () => {
    const { jar, uid, answer } = await federate('cancel');
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('Error code: <code>upstream_refused</code>');
    const back = await request(jar, `${server.issuer}/login/federated-cancel`, { method: 'POST', ...form({ uid }) });
    expect(back.status).toBe(302);
    const redirect = new URL(back.location!);
    expect(redirect.origin + redirect.pathname).toBe(server.testClient.redirectUri);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
  });

  it('“Back to the app” posted by a browser (a navigation) is answered once: 302 to the client with access_denied and the state, then Back and a re-post show that the sign-in is over', async () => {
    const jar = new CookieJar();
    const uid = uidIn((await request(jar, authorizeUrl(server, { state: 'st-cancel' }))).text);
    const start = await request(jar, `${server.issuer}/login/federated/acme`, { method: 'POST', ...form({ uid }) });
    const refused = await request(jar, await upstreamSignIn(new CookieJar(), start.location!, 'cancel'));
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('<form method="post" action="/login/federated-cancel">');

    const navigation = { method: 'POST', headers: { ...form({ uid }).headers, origin: server.issuer, 'sec-fetch-dest': 'document', accept: 'text/html' }, body: form({ uid }).body };
    const back = await request(jar, `${server.issuer}/login/federated-cancel`, navigation);
    // The sign-in ends at the client: oidc-provider's redirect, a GET there (as for every step's end).
    expect(back.status).toBe(302);
    const expected = new URLSearchParams({ error: 'access_denied', error_description: 'The user went back to the application without signing in.', state: 'st-cancel', iss: server.issuer });
    expect(back.location).toBe(`${server.testClient.redirectUri}?${expected.toString()}`);

    // Back to the federated page, or a reload of the post: the sign-in is over, said once more, never a second redirect.
    const shown = await request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'text/html' } });
    expect(shown.status).toBe(400);
    expect(shown.text).toContain('<h1>This sign-in has expired</h1>');
    expect(shown.text).toContain('Error code: <code>interaction_expired</code>');
    const repost = await request(jar, `${server.issuer}/login/federated-cancel`, navigation);
    expect(repost.status).toBe(400);
    expect(repost.location).toBeNull();
    expect(repost.text).toContain('Error code: <code>interaction_expired</code>');
  });

  it('refuses an attempt older than five minutes, while the interaction lives on', async () => {
    const hank = upstream.addUser({ username: 'hank', email: 'hank@acme.test', emailVerified: true, amr: ['mfa'] });
    const jar = new CookieJar();
    const uid = uidIn((await request(jar, authorizeUrl(server))).text);
    const start = await request(jar, `${server.issuer}/login/federated/acme`, { method: 'POST', ...form({ uid }) });
    const callback = await upstreamSignIn(new CookieJar(), start.location!, hank);
    clock.now += 5 * 60_000;
    const late = await request(jar, callback);
    expect(late.status).toBe(400);
    expect(late.text, late.text).toContain('Error code: <code>attempt_expired</code>');
    expect(late.text).toContain('Try Acme SSO again');
  });

  it('sends an email of a home-realm domain straight to its provider', async () => {
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    expect(page.text).toContain('id="home-realm-hint"');
    const uid = uidIn(page.text);
    const realm = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: 'someone@ACME.test', password: '' }) });
    expect(realm.status).toBe(303);
    expect(new URL(realm.location!).origin).toBe(upstream.issuer);
    // Local users keep their password step.
    const local = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: 'someone@other.test', password: 'x' }) });
    expect(local.status).toBe(401);
  });

  it('refuses a provider for invited users only to someone with no link, offering to prove a local account', async () => {
    await providerRegistry(server.app.services.identityProviderStore).create(CLI_OPERATOR, {
      slug: 'acme-invited',
      displayName: 'Acme Invited',
      issuer: upstream.issuer,
      clientId: upstream.client.clientId,
      clientSecret: upstream.client.clientSecret,
      provisioning: 'invited_only',
    });
    const ivan = upstream.addUser({ username: 'ivan', email: 'ivan@acme.test', emailVerified: true, amr: ['mfa'] });
    const { answer } = await federate(ivan, new CookieJar(), 'acme-invited');
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('accounts for Acme Invited users are created by an administrator');
    expect(answer.text).toContain('id="federated-link"');
    expect(answer.text).not.toContain('id="federated-create"');
    expect(await server.app.services.accounts.findByUsername('ivan')).toBeUndefined();
  });

  it('shows a page, not a 500, when the provider cannot be reached', async () => {
    await providerRegistry(server.app.services.identityProviderStore).create(CLI_OPERATOR, {
      slug: 'down',
      displayName: 'Down SSO',
      issuer: 'http://127.0.0.1:9/',
      clientId: 'gatehouse',
      clientSecret: 'down-secret-value-1234567890',
    });
    const jar = new CookieJar();
    const uid = uidIn((await request(jar, authorizeUrl(server))).text);
    const start = await request(jar, `${server.issuer}/login/federated/down`, { method: 'POST', ...form({ uid }) });
    expect(start.status).toBe(502);
    expect(start.text).toContain('Down SSO could not be reached');
    expect(start.text).toContain('Error code: <code>upstream_unavailable</code>');
    expect(start.text).toContain('id="federated-other-way"');
  });

  it('shows linked providers on /account, and never removes the last way to sign in', async () => {
    const kim = upstream.addUser({ username: 'kim', email: 'kim@acme.test', emailVerified: true, amr: ['pwd', 'mfa'] });
    const { jar, answer } = await federate(kim);
    await resumed(jar, answer);
    const page = await request(jar, `${server.issuer}/account/security`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2>Sign-in providers</h2>');
    expect(page.text).toContain('<li data-provider="acme"><span><strong>Acme SSO</strong>');
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      request(jar, `${server.issuer}/account/links/remove`, { method: 'POST', headers: { ...form(fields).headers, origin: server.issuer, ...headers }, body: form(fields).body });
    // kim has no password: Acme is the only way in.
    const refused = await post({ provider: 'acme' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('This provider is the only way to sign in to your account, so it stays linked.');
    expect(refused.text).toContain('<code>last_sign_in_method</code>');
    const account = await server.app.services.accounts.findByUsername('kim');
    expect(await server.app.services.accountLinks.find('acme', kim.sub)).toBeDefined();
    expect((await post({ provider: 'acme' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ provider: 'github' })).status).toBe(404);

    // With a password, the link may go.
    await server.app.services.accounts.setPassword(account!.id, '$argon2id$v=19$m=19456,p=1,t=2$c29tZXNhbHQ$aGFzaA');
    const removed = await post({ provider: 'acme' });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/account/security');
    expect(await server.app.services.accountLinks.find('acme', kim.sub)).toBeUndefined();
    await server.app.flushAudit();
    expect(auditOf('account.unlinked').at(-1)).toMatchObject({ account_id: account!.id, provider: 'acme', via: 'account_page' });
    const after = await request(jar, `${server.issuer}/account/security`);
    expect(after.text).toContain('The provider was unlinked: it no longer signs you in here.');
    expect(after.text).toContain('No other identity provider is linked to your account.');
  });

  it('answers bad input with a 4xx page, never a 500', async () => {
    const jar = new CookieJar();
    const uid = uidIn((await request(jar, authorizeUrl(server))).text);
    // No interaction cookie: nothing to resume.
    const stranger = await request(new CookieJar(), `${server.issuer}/login/federated/acme/callback?code=x&state=y`);
    expect(stranger.status).toBe(400);
    expect(stranger.text).toContain('<code>interaction_expired</code>');
    const unknown = await request(jar, `${server.issuer}/login/federated/nope`, { method: 'POST', ...form({ uid }) });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('<code>unknown_provider</code>');
    const malformed = await request(jar, `${server.issuer}/login/federated/%E0%A4%A`, { method: 'POST', ...form({ uid }) });
    expect(malformed.status).toBeGreaterThanOrEqual(400);
    expect(malformed.status).toBeLessThan(500);
    const noAttempt = await request(jar, `${server.issuer}/login/federated/acme/callback?code=x&state=y`);
    expect(noAttempt.status).toBe(400);
    expect(noAttempt.text).toContain('<code>attempt_expired</code>');
    const badChoice = await request(jar, `${server.issuer}/login/federated-choice`, { method: 'POST', ...form({ uid, choice: 'both' }) });
    expect(badChoice.status).toBe(400);
    expect(badChoice.text).toContain('<code>invalid_request</code>');
    const noPending = await request(jar, `${server.issuer}/login/federated-choice`, { method: 'POST', ...form({ uid, choice: 'create' }) });
    expect(noPending.status).toBe(400);
    expect(noPending.text).toContain('<code>attempt_expired</code>');
  });

  it('writes no secret of a provider, and no code or token of the upstream, to the log', async () => {
    await server.app.flushAudit();
    const log = lines.join('\n');
    expect(log).not.toContain(upstream.client.clientSecret);
    expect(log).not.toContain('down-secret-value-1234567890');
    expect(log).not.toMatch(/code_verifier|"nonce"/);
  });
});
