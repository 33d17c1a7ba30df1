import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer, type TestUser } from '../support/flow.ts';

// The sign-in pages name the app by its display name and logo, on the embedded SQLite default and
// on PostgreSQL.
describe.each(TEST_ENGINES)('the sign-in pages on %s', (engine) => {
  let server: TestAuthServer;
  let user: TestUser;
  const branded = { clientId: 'movie-night', redirectUri: 'http://127.0.0.1:9/movie-night/callback', logoUri: 'https://cdn.example.com/movie-night/logo.png' };
  const imgSrc = (csp: string | null) => /img-src ([^;]*)/.exec(csp ?? '')?.[1];

  beforeAll(async () => {
    server = await startServer({ engine });
    user = await server.createUser();
    await server.app.services.clients.create({
      clientId: branded.clientId,
      name: 'Movie Night',
      logoUri: branded.logoUri,
      redirectUris: [branded.redirectUri],
      clientSecret: 'movie-night-secret-0123456789abcdef',
      grantTypes: ['authorization_code'],
      firstParty: true,
    });
  });
  afterAll(() => server.close());

  it('the login and second-factor pages name the app and show its registered logo, whose origin alone the CSP allows', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server, { clientId: branded.clientId, redirectUri: branded.redirectUri }));
    expect(login.status).toBe(200);
    expect(login.text).toContain('to continue to <strong>Movie Night</strong>');
    expect(login.text).toContain(`<img id="client-logo" class="client-logo" src="${branded.logoUri}" alt="Movie Night logo" width="40" height="40" referrerpolicy="no-referrer">`);
    expect(imgSrc(login.headers.get('content-security-policy'))).toBe("'self' data: https://cdn.example.com");

    const mfa = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid: uidOf(login.text), username: user.username, password: user.password }) });
    expect(mfa.status).toBe(200);
    expect(mfa.text).toContain('to continue to <strong>Movie Night</strong>');
    expect(mfa.text).toContain(`src="${branded.logoUri}" alt="Movie Night logo"`);
    expect(imgSrc(mfa.headers.get('content-security-policy'))).toBe("'self' data: https://cdn.example.com");
  });

  it('an app without a logo: its name, no image, and images stay same-origin', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server));
    expect(login.text).toContain('to continue to <strong>Test App</strong>');
    expect(login.text).not.toContain('<img');
    expect(imgSrc(login.headers.get('content-security-policy'))).toBe("'self' data:");
  });

  it('the JSON contract of the login step is unchanged (the display name, no logo member)', async () => {
    const jar = new CookieJar();
    const login = await request(jar, authorizeUrl(server, { clientId: branded.clientId, redirectUri: branded.redirectUri }), { headers: { accept: 'application/json' } });
    expect(login.status).toBe(200);
    expect(login.json()).toEqual({ status: 'login_required', interaction: expect.any(String), next: '/login', client: 'Movie Night' });
  });
});
