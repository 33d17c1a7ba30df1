import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestAuthServer } from '../support/flow.ts';

describe('requests no route handles answer in the contract error shape', () => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const send = (method: string, path: string, accept = 'text/html') => fetch(`${server.issuer}${path}`, { method, headers: { accept }, redirect: 'manual' });

  it('an unknown path is 404 not_found: the HTML error page for browsers, JSON for API clients', async () => {
    const page = await send('GET', '/no/such/page');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<code>not_found</code>');
    expect(html).toContain('There is nothing at this address.');
    expect(page.headers.get('x-request-id')).toMatch(/.+/);

    const json = await send('GET', '/no/such/page', 'application/json');
    expect(json.status).toBe(404);
    expect(await json.json()).toEqual({ error: 'not_found', error_description: 'There is nothing at this address.' });
  });

  it('an unknown path or method under /oauth2/ is RFC 6749 JSON, whatever the Accept', async () => {
    for (const [method, path] of [['GET', '/oauth2/v1/nothing'], ['PUT', '/oauth2/v1/token'], ['DELETE', '/oauth2/v1/authorize']] as const) {
      const res = await send(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({ error: 'not_found', error_description: 'There is nothing at this address.' });
    }
  });

  it('a method a page does not offer is 405 method_not_allowed with Allow', async () => {
    const json = await send('DELETE', '/login', 'application/json');
    expect(json.status).toBe(405);
    expect(json.headers.get('allow')).toBe('POST');
    expect(await json.json()).toEqual({ error: 'method_not_allowed', error_description: 'DELETE is not allowed here; use POST.' });

    const page = await send('PUT', '/authenticator/devices');
    expect(page.status).toBe(405);
    expect(page.headers.get('allow')).toBe('HEAD, GET');
    expect(await page.text()).toContain('<code>method_not_allowed</code>');

    const head = await send('HEAD', '/login');
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
  });

  it('an unknown method is never 501: 405 on a page that exists, 404 elsewhere', async () => {
    const login = await send('PROPFIND', '/login', 'application/json');
    expect(login.status).toBe(405);
    expect(login.headers.get('allow')).toBe('POST');
    expect(await login.json()).toEqual({ error: 'method_not_allowed', error_description: 'PROPFIND is not allowed here; use POST.' });

    const nowhere = await send('M-SEARCH', '/no/such/page');
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get('allow')).toBeNull();
    expect(await nowhere.text()).toContain('<code>not_found</code>');

    const token = await send('PROPFIND', '/oauth2/v1/token');
    expect(token.status).toBe(404);
    expect(await token.json()).toEqual({ error: 'not_found', error_description: 'There is nothing at this address.' });
  });

  it('OPTIONS on a page still lists its methods', async () => {
    const res = await send('OPTIONS', '/login');
    expect(res.status).toBe(200);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
