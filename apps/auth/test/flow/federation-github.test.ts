/**
 * Sign-in with an OAuth 2.0 provider without OpenID Connect, GitHub-shaped (the `github`
 * preset pointed at a small server answering like GitHub's endpoints, test/support/upstream-github.ts):
 * authorize with `state` and PKCE, the code exchanged with client_secret_post, the user from
 * /user (numeric id as subject, login as username) and the e-mail only from /user/emails'
 * primary verified address; GitHub says nothing of MFA, so a Gatehouse factor is asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { federatedCallbackUrl } from '../../src/federation/callback-url.ts';
import { authorizeUrl, CookieJar, form, request, startServer, type TestAuthServer } from '../support/flow.ts';
import { startUpstreamGithub, type UpstreamGithub } from '../support/upstream-github.ts';
import { providerRegistry, uidIn } from '../support/federation.ts';

describe('federated sign-in with a GitHub-shaped OAuth 2.0 provider', () => {
  let server: TestAuthServer;
  let github: UpstreamGithub;

  beforeAll(async () => {
    server = await startServer();
    github = await startUpstreamGithub();
    await providerRegistry(server.app.services.identityProviderStore).create(CLI_OPERATOR, {
      slug: 'github',
      preset: 'github',
      displayName: 'GitHub',
      clientId: github.client.clientId,
      clientSecret: github.client.clientSecret,
      ...github.endpoints,
    });
  });
  afterAll(async () => {
    await github.close();
    await server.close();
  });

  async function federate(): Promise<{ jar: CookieJar; uid: string; answer: Awaited<ReturnType<typeof request>>; authorization: URL }> {
    const jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    expect(page.text).toContain('>Continue with GitHub</button>');
    const uid = uidIn(page.text);
    const start = await request(jar, `${server.issuer}/login/federated/github`, { method: 'POST', ...form({ uid }) });
    expect(start.status).toBe(303);
    const authorization = new URL(start.location!);
    const atGithub = await fetch(authorization, { redirect: 'manual' });
    expect(atGithub.status).toBe(302);
    const answer = await request(jar, atGithub.headers.get('location')!);
    return { jar, uid, answer, authorization };
  }

  it('provisions the user from /user and its verified primary address, with state and PKCE, then asks a Gatehouse factor', async () => {
    github.signIn({
      id: 583231,
      login: 'Octo-Cat',
      name: 'The Octocat',
      email: 'public@example.test',
      emails: [
        { email: 'public@example.test', primary: false, verified: false },
        { email: 'octocat@example.test', primary: true, verified: true },
      ],
    });
    const { jar, uid, answer, authorization } = await federate();
    expect(authorization.origin + authorization.pathname).toBe(github.endpoints.authorizationEndpoint);
    expect(authorization.searchParams.get('client_id')).toBe(github.client.clientId);
    expect(authorization.searchParams.get('scope')).toBe('read:user user:email');
    expect(authorization.searchParams.get('redirect_uri')).toBe(federatedCallbackUrl(server.issuer, 'github'));
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('state')).toBeTruthy();
    expect(authorization.searchParams.has('nonce')).toBe(false);

    // The token request authenticated with client_secret_post and sent the PKCE verifier.
    const token = github.requests.find((r) => r.path === '/login/oauth/access_token');
    const sent = new URLSearchParams(token?.body);
    expect(sent.get('client_secret')).toBe(github.client.clientSecret);
    expect(sent.get('code_verifier')).toBeTruthy();
    expect(github.requests.filter((r) => r.path === '/user' || r.path === '/user/emails').map((r) => [r.path, r.authorization?.startsWith('Bearer gho_')])).toEqual([
      ['/user', true],
      ['/user/emails', true],
    ]);

    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<title>Two-step verification · Gatehouse</title>');
    const account = await server.app.services.accounts.findByUsername('octo-cat');
    expect(account).toMatchObject({ email: 'octocat@example.test', name: 'The Octocat', groups: [] });
    expect(await server.app.services.accountLinks.find('github', '583231')).toMatchObject({ accountId: account!.id });
    expect(uid).toBeTruthy();
    expect(jar.cookies.size).toBeGreaterThan(0);
  });

  it('refuses a user whose only address is not verified, and a refusal at GitHub', async () => {
    github.signIn({ id: 99, login: 'unverified', name: null, email: 'maybe@example.test', emails: [{ email: 'maybe@example.test', primary: true, verified: false }] });
    const { answer } = await federate();
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('Error code: <code>unverified_email</code>');
    expect(answer.text).toContain('did not confirm that your email address maybe@example.test is verified');
    expect(await server.app.services.accounts.findByUsername('unverified')).toBeUndefined();

    github.deny();
    const denied = await federate();
    expect(denied.answer.status).toBe(403);
    expect(denied.answer.text).toContain('Error code: <code>upstream_refused</code>');
  });

  it('finds the returning GitHub user by its numeric id, whatever its login became', async () => {
    github.signIn({ id: 583231, login: 'renamed-cat', name: 'The Octocat', email: null, emails: [{ email: 'octocat@example.test', primary: true, verified: true }] });
    const { answer } = await federate();
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<title>Two-step verification · Gatehouse</title>');
    expect(await server.app.services.accounts.findByUsername('renamed-cat')).toBeUndefined();
    expect((await server.app.services.accountLinks.find('github', '583231'))?.lastUsedAt).not.toBeNull();
  });
});
