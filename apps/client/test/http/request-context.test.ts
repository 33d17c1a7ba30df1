/**
 * The error handler's answers to methods the router does not serve (found by the fuzz suite:
 * TRACE on /logout was a 500 server_error, from the router's 501 Not Implemented).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { sendRaw } from '@gatehouse/fuzz';
import { startClient, type ClientHarness } from '../support/client-harness.ts';

let auth: TestAuthServer;
let client: ClientHarness;

beforeAll(async () => {
  auth = await startTestAuthServer();
  client = await startClient({ auth });
});

afterAll(async () => {
  await client?.close();
  await auth?.close();
});

const send = (method: string, path: string) => sendRaw(client.url, { method, path, headers: [] });

describe('methods the router does not serve', () => {
  it.each([
    ['TRACE', '/logout', 'HEAD, GET, POST'],
    ['MKCOL', '/logout', 'HEAD, GET, POST'],
    ['DELETE', '/logout', 'HEAD, GET, POST'],
    ['PROPFIND', '/', 'HEAD, GET'],
    ['PUT', '/items', 'POST'],
  ])('%s %s is the 405 page with Allow: %s', async (method, path, allow) => {
    const res = await send(method, path);
    expect(res.status).toBe(405);
    expect(res.header('allow')).toBe(allow);
    expect(res.header('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<code id="error-code">method_not_allowed</code>');
    expect(client.logs.filter((line) => Number(line.level) >= 50)).toEqual([]);
  });

  it.each(['TRACE', 'PURGE', 'GET'])('%s on a path no route has is the 404 page', async (method) => {
    const res = await send(method, '/no-such-page');
    expect(res.status).toBe(404);
    expect(res.header('allow')).toBeUndefined();
    expect(res.text).toContain('<code id="error-code">not_found</code>');
  });
});
