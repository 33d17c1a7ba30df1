/**
 * The server's listener (app.handler(), http/provider-front.ts): the provider's requests skip the
 * Koa chain, every other one goes through it, and both answer exactly what Koa's callback() (the
 * whole chain, which hands the provider's requests on itself) answers.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as rawRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerFront } from '../../src/http/provider-front.ts';
import { basic, startServer, type TestAuthServer } from '../support/flow.ts';

describe('providerFront', () => {
  function front(answeredHere: (path: string) => boolean) {
    const seen: string[] = [];
    const recorded: unknown[][] = [];
    let clock = 1_000;
    const listener = providerFront({
      chain: (req) => {
        seen.push(`chain ${req.url}`);
      },
      answeredHere,
      provider: () => async (req: IncomingMessage, res: ServerResponse) => {
        seen.push(`provider ${req.url}`);
        clock += 250;
        res.statusCode = 401;
      },
      recorder: { record: (...args) => recorded.push(args) },
      route: (path) => (path === '/oauth2/v1/token' ? '/oauth2/v1/token' : 'other'),
      now: () => clock,
    });
    const call = async (url: string, method = 'POST') => {
      const res = { statusCode: 200 } as ServerResponse;
      listener({ url, method } as IncomingMessage, res);
      await new Promise((resolve) => setImmediate(resolve));
      return res.statusCode;
    };
    return { seen, recorded, call };
  }

  it("sends the chain's own paths to the chain and every other path to the provider, the query left out of the decision", async () => {
    const { seen, call } = front((path) => path === '/healthz' || path.startsWith('/account'));
    await call('/healthz');
    await call('/account?tab=apps');
    await call('/oauth2/v1/token');
    await call('/oauth2/v1/token?x=/account');
    await call('/nowhere');
    expect(seen).toEqual(['chain /healthz', 'chain /account?tab=apps', 'provider /oauth2/v1/token', 'provider /oauth2/v1/token?x=/account', 'provider /nowhere']);
  });

  it('sends a target that is not a plain path to the chain, which decides', async () => {
    const { seen, call } = front(() => false);
    await call('http://127.0.0.1/oauth2/v1/token');
    await call('*', 'OPTIONS');
    expect(seen).toEqual(['chain http://127.0.0.1/oauth2/v1/token', 'chain *']);
  });

  it("records a provider request's metrics: method and route name as it arrived, the status sent, the seconds taken", async () => {
    const { recorded, call } = front(() => false);
    expect(await call('/oauth2/v1/token?grant_type=refresh_token')).toBe(401);
    await call('/somewhere', 'GET');
    expect(recorded).toEqual([
      ['POST', '/oauth2/v1/token', 401, 0.25],
      ['GET', 'other', 401, 0.25],
    ]);
  });
});

describe("app.handler() answers what Koa's callback() answers", () => {
  let server: TestAuthServer;
  let chainOnly: ReturnType<typeof createServer>;
  let chainUrl: string;
  beforeAll(async () => {
    server = await startServer();
    chainOnly = createServer(server.app.callback() as RequestListener);
    await new Promise<void>((resolve) => chainOnly.listen(0, '127.0.0.1', resolve));
    chainUrl = `http://127.0.0.1:${(chainOnly.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => chainOnly.close(() => resolve()));
    await server.close();
  });

  /** One request by its raw target (an absolute one included), answered by a listener on `base`. */
  function send(base: string, target: string, init: { method?: string; headers?: Record<string, string>; body?: string }) {
    const { port } = new URL(base);
    return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = rawRequest({ host: '127.0.0.1', port, path: target, method: init.method ?? 'GET', headers: init.headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end(init.body);
    });
  }

  const HEADERS = ['content-type', 'cache-control', 'location', 'www-authenticate', 'allow', 'content-security-policy', 'x-frame-options', 'pragma'] as const;

  it.each([
    ['discovery', '/.well-known/openid-configuration', {}],
    ['the key set', '/oauth2/v1/keys', {}],
    ['the token endpoint, a refused client', '/oauth2/v1/token', { method: 'POST', headers: { authorization: 'Basic dGVzdC1hcHA6d3Jvbmc=', 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=nope' }],
    ['the token endpoint, an unknown refresh token', '/oauth2/v1/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=nope' }],
    ['an unknown provider path', '/oauth2/v1/nothing-here', {}],
    ['the health check', '/healthz', {}],
    ['an own route (the account page, signed out)', '/account', {}],
    ['an own route with a query', '/account?x=1', {}],
    ['an unrouted own path', '/admin/v1/nothing-here', {}],
    ['an absolute request target', 'http://127.0.0.1/.well-known/openid-configuration', {}],
  ] as const)('%s', async (_name, target, init) => {
    const withBody = init as { method?: string; headers?: Record<string, string>; body?: string };
    const headers = target === '/oauth2/v1/token' && !withBody.headers?.authorization ? { ...withBody.headers, authorization: basic(server.testClient.clientId, server.testClient.clientSecret) } : withBody.headers;
    const viaHandler = await send(server.issuer, target, { ...withBody, ...(headers ? { headers } : {}) });
    const viaChain = await send(chainUrl, target, { ...withBody, ...(headers ? { headers } : {}) });
    expect(viaHandler.status).toBe(viaChain.status);
    expect(viaHandler.body).toBe(viaChain.body);
    for (const name of HEADERS) expect([name, viaHandler.headers[name]]).toEqual([name, viaChain.headers[name]]);
    expect(viaHandler.headers['x-request-id']).toMatch(/^[\w-]+$/);
  });
});
