import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startServer, type TestAuthServer } from '../support/flow.ts';

describe('errors of the OAuth API endpoints are RFC 6749 JSON whatever the Accept header', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.issuer}${path}`, { method: 'POST', headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

  it('token: a browser-like Accept still gets JSON', async () => {
    const res = await post('/oauth2/v1/token', 'grant_type=authorization_code&grant_type=authorization_code');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'no client authentication mechanism provided' });

    const auth = await post('/oauth2/v1/token', 'grant_type=client_credentials', { authorization: basic(server.testClient.clientId, 'wrong') });
    expect(auth.status).toBe(401);
    expect(await auth.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });

  it('introspect, revoke and userinfo too', async () => {
    const introspect = await post('/oauth2/v1/introspect', 'token=x');
    expect(introspect.status).toBe(400);
    expect(await introspect.json()).toEqual({ error: 'invalid_request', error_description: 'no client authentication mechanism provided' });

    const revoke = await post('/oauth2/v1/revoke', 'token=x');
    expect(revoke.status).toBe(400);
    expect(revoke.headers.get('content-type')).toBe('application/json; charset=utf-8');

    const userinfo = await fetch(`${server.issuer}/oauth2/v1/userinfo`, { headers: { accept: 'text/html', authorization: 'Bearer not-a-token' } });
    expect(userinfo.status).toBe(401);
    expect(userinfo.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await userinfo.json()).toEqual({ error: 'invalid_token', error_description: 'invalid token provided' });
  });

  it('the authorization endpoint still shows browsers the error page', async () => {
    const res = await fetch(`${server.issuer}/oauth2/v1/authorize?response_type=code`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('<code>invalid_request</code>');
  });
});
