import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CookieJar, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

describe('bad input gets a clear 4xx', () => {
  let server: TestAuthServer;
  let jar: CookieJar;
  let uid: string;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const post = (path: string, init: { headers?: Record<string, string>; body?: string }) => request(jar, `${server.issuer}${path}`, { method: 'POST', ...init });

  it.each([
    ['malformed JSON', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"username":' }, 400, 'invalid_request', 'The request body is not valid JSON.'],
    ['a JSON array', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '[]' }, 400, 'invalid_request', 'The JSON body must be an object.'],
    ['a non-string field', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"username":1,"password":"x"}' }, 400, 'invalid_request', 'Field "username" must be a string.'],
    ['a missing field', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"username":"a"}' }, 400, 'invalid_request', 'Field "password" is required.'],
    ['an oversized field', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ username: 'u'.repeat(65), password: 'p' }) }, 400, 'invalid_request', 'Field "username" is longer than 64 characters.'],
    ['an oversized body', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ username: 'u', password: 'p'.repeat(20_000) }) }, 413, 'payload_too_large', 'Request body is larger than 16384 bytes.'],
    ['a wrong content type', { headers: { 'content-type': 'text/plain', accept: 'application/json' }, body: 'username=a' }, 415, 'unsupported_media_type', 'Send the form as application/x-www-form-urlencoded or application/json.'],
    // Parameter pollution (docs/security.md, ASVS 5.1.1): which of two values counts is never guessed.
    ['a repeated form field', { headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: 'username=alice&username=admin&password=x' }, 400, 'invalid_request', 'Field "username" is repeated.'],
  ])('POST /login with %s', async (_name, init, status, error, description) => {
    jar = new CookieJar();
    await request(jar, authorizeUrl(server));
    const res = await post('/login', init);
    expect(res.status).toBe(status);
    expect(res.json()).toEqual(expect.objectContaining({ error, error_description: description }));
    expect(res.text).not.toMatch(/at \w+ \(/);
  });

  it.each([
    ['a wrong content type', { 'content-type': 'application/x-www-form-urlencoded' }, 'code=a', 415, 'unsupported_media_type', 'Send the request as application/json.'],
    ['an oversized body', { 'content-type': 'application/json' }, JSON.stringify({ code: 'c'.repeat(9_000) }), 413, 'payload_too_large', 'Request body is larger than 8192 bytes.'],
    ['malformed JSON', { 'content-type': 'application/json' }, '{"code":', 400, 'invalid_request', 'The request body is not valid JSON.'],
    ['an empty body', { 'content-type': 'application/json' }, '', 400, 'invalid_request', 'The request body is not valid JSON.'],
    ['a JSON array', { 'content-type': 'application/json' }, '["code"]', 400, 'invalid_request', 'The JSON body must be an object.'],
  ])('POST /authenticator/api/register with %s', async (_name, headers, body, status, error, description) => {
    const res = await request(new CookieJar(), `${server.issuer}/authenticator/api/register`, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body });
    expect(res.status).toBe(status);
    expect(res.json()).toEqual(expect.objectContaining({ error, error_description: description }));
  });

  it('POST /login without an interaction cookie is interaction_expired (HTML page for browsers)', async () => {
    jar = new CookieJar();
    const res = await post('/login', form({ username: 'a', password: 'b' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('This sign-in page has expired, or it was opened in a browser that did not start it.');
    expect(res.text).toContain('<code>interaction_expired</code>');
  });

  it('a form uid that does not match the cookie is refused', async () => {
    jar = new CookieJar();
    await request(jar, authorizeUrl(server));
    const res = await post('/login', { ...form({ uid: 'someone-else', username: 'a', password: 'b' }), headers: { ...form({}).headers, accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'interaction_expired' });
  });

  it('POST /mfa/verify without a passed password step is password_required', async () => {
    jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    uid = uidOf(page.text);
    const res = await post('/mfa/verify', { ...form({ uid, code: '123456' }), headers: { ...form({}).headers, accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: 'password_required', error_description: 'Enter your username and password first.' });
  });

  it('an unknown interaction URL is refused', async () => {
    jar = new CookieJar();
    const res = await request(jar, `${server.issuer}/interaction/does-not-exist`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('interaction_expired');
  });

  it('HTML pages escape what they echo', async () => {
    jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const res = await post('/login', form({ uid: uidOf(page.text), username: '<script>alert(1)</script>', password: 'x' }));
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('<script>alert(1)</script>');
    expect(res.text).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('form fields named like object members are plain fields, not "repeated"', async () => {
    jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const body = `uid=${encodeURIComponent(uidOf(page.text))}&username=nobody&password=wrong&constructor=1&toString=2&__proto__=3&hasOwnProperty=4`;
    const res = await post('/login', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(res.status).toBe(401);
    expect(res.text).toContain('Error code: <code>invalid_credentials</code>');
    const twice = await post('/login', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `${body}&constructor=5` });
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('Field &quot;constructor&quot; is repeated.');
    const json = await post('/login', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: `{"uid":${JSON.stringify(uidOf(page.text))},"username":"nobody","password":"wrong","__proto__":"x","constructor":"y"}` });
    expect(json.status).toBe(401);
    expect(json.json()).toMatchObject({ error: 'invalid_credentials' });
  });

  it('a refused sign-in step shown again as its form names the error code, like the error page', async () => {
    jar = new CookieJar();
    const page = await request(jar, authorizeUrl(server));
    const empty = await post('/login', form({ uid: uidOf(page.text) }));
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('<p class="error" role="alert">Field &quot;username&quot; is required.</p>');
    expect(empty.text).toContain('<p class="muted">Error code: <code>invalid_request</code></p>');

    const user = await server.createUser();
    const wrong = await post('/login', form({ uid: uidOf(page.text), username: user.username, password: 'wrong' }));
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Error code: <code>invalid_credentials</code>');

    const mfa = await post('/login', form({ uid: uidOf(page.text), username: user.username, password: user.password }));
    expect(mfa.status).toBe(200);
    expect(mfa.text).not.toContain('Error code');
    const now = Date.now();
    const valid = await Promise.all([-30_000, 0, 30_000].map((skew) => server.app.services.totp.generate(user.totpSecret, now + skew)));
    const wrongCode = ['000000', '111111', '222222', '333333'].find((c) => !valid.includes(c))!;
    const badCode = await post('/mfa/verify', form({ uid: uidOf(page.text), code: wrongCode }));
    expect(badCode.status).toBe(401);
    expect(badCode.text).toContain('Error code: <code>invalid_code</code>');
  });

  it('authorize with an unregistered redirect_uri shows an error page, never redirects', async () => {
    jar = new CookieJar();
    const res = await request(jar, authorizeUrl(server, { redirectUri: 'https://evil.example/cb' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.text).toContain('<code>invalid_redirect_uri</code>');
  });

  it('the token endpoint answers RFC 6749 errors', async () => {
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=nope&redirect_uri=x&client_id=test-app&client_secret=wrong',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });

  it('GET /login is 405 with Allow', async () => {
    const res = await fetch(`${server.issuer}/login`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
