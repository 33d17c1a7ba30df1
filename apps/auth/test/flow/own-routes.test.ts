/**
 * Gatehouse's own routes (admin API, account, authenticator, passkey devices, static files) are
 * answered by the app in front of oidc-provider; the protocol endpoints and the sign-in pages by
 * the provider. Either way a request goes through one copy of the plumbing: one access line whose
 * request id is the response's, the security headers, the contract's 404/405 for a path no route
 * answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger, startServer, type TestAuthServer } from '../support/flow.ts';

describe('own routes in front of the mounted provider', () => {
  const { logger, lines } = capturingLogger();
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startServer({ logger });
  });
  afterAll(() => server.close());

  const cases = [
    // Own routes.
    { method: 'GET', path: '/static/gatehouse.css', status: 200, type: 'text/css; charset=utf-8' },
    { method: 'GET', path: '/admin/v1/users', status: 401, type: 'application/problem+json' },
    { method: 'POST', path: '/authenticator/passkeys/options', status: 401, type: 'application/json; charset=utf-8' },
    { method: 'GET', path: '/account/no-such-page', status: 404, type: 'application/json; charset=utf-8', body: { error: 'not_found', error_description: 'There is nothing at this address.' } },
    { method: 'DELETE', path: '/account', status: 405, type: 'application/json; charset=utf-8', allow: 'HEAD, GET', body: { error: 'method_not_allowed', error_description: 'DELETE is not allowed here; use HEAD, GET.' } },
    // An own route by its exact path inside the provider's /oauth2/v1/logout.
    { method: 'POST', path: '/oauth2/v1/logout/everywhere', form: 'nonce=no-record', status: 400, type: 'application/json; charset=utf-8', body: { error: 'sign_out_expired', error_description: 'This page no longer signs you out anywhere else: it has expired or was already used. To end your other sessions, sign in and choose "Sign out other sessions" on your account page.' } },
    { method: 'GET', path: '/oauth2/v1/logout/everywhere', status: 405, type: 'application/json; charset=utf-8', allow: 'POST', body: { error: 'method_not_allowed', error_description: 'GET is not allowed here; use POST.' } },
    // The provider's endpoints and the sign-in pages.
    { method: 'GET', path: '/.well-known/openid-configuration', status: 200, type: 'application/json; charset=utf-8' },
    { method: 'POST', path: '/oauth2/v1/token', status: 400, type: 'application/json; charset=utf-8' },
    { method: 'GET', path: '/oauth2/v1/logout/success', status: 200, type: 'text/html; charset=utf-8' },
    { method: 'GET', path: '/interaction/no-such-interaction', status: 400, type: 'application/json; charset=utf-8' },
    { method: 'DELETE', path: '/login', status: 405, type: 'application/json; charset=utf-8', allow: 'POST', body: { error: 'method_not_allowed', error_description: 'DELETE is not allowed here; use POST.' } },
  ] as const;

  it.each(cases)('$method $path: one access line, its request id, the security headers', async (c) => {
    lines.length = 0;
    const id = `own-routes-${c.method}-${c.path.replaceAll('/', '.')}`;
    const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': id };
    if ('form' in c) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${server.issuer}${c.path}`, { method: c.method, headers, body: 'form' in c ? c.form : null, redirect: 'manual' });
    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toBe(c.type);
    expect(res.headers.get('x-request-id')).toBe(id);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    if ('allow' in c) expect(res.headers.get('allow')).toBe(c.allow);
    if ('body' in c) expect(await res.json()).toEqual(c.body);
    else await res.arrayBuffer();
    const requests = lines.filter((l) => l.event === 'http_request');
    expect(requests.map(({ request_id, method, path, status }) => ({ request_id, method, path, status }))).toEqual([{ request_id: id, method: c.method, path: c.path, status: c.status }]);
  });

  it('a health probe is answered before the plumbing: its request id, no access line', async () => {
    lines.length = 0;
    const res = await fetch(`${server.issuer}/healthz`, { headers: { 'x-request-id': 'probe-1' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('probe-1');
    expect(lines.filter((l) => l.event === 'http_request')).toEqual([]);
  });
});
