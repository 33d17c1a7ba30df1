/**
 * A tiny stand-in for the resource server: GET/POST/DELETE /api/v1/<collection>[/<id>], Bearer JWTs
 * checked against the test authorization server's JWKS (signature, issuer, audience, scope),
 * RFC 9457 problem bodies. The real API is exercised by the e2e suite.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface StubApi {
  url: string;
  items: Map<number, Record<string, unknown>>;
  /** Every bearer token received, in order. */
  tokens: string[];
  /** Tokens answered with 401 invalid_token whatever they are. */
  rejected: Set<string>;
  close(): Promise<void>;
}

export async function startStubApi(options: { issuer: string; audience: string; collection?: string }): Promise<StubApi> {
  const collection = options.collection ?? 'movies';
  const jwks = createRemoteJWKSet(new URL(`${options.issuer}/oauth2/v1/keys`));
  const stub = { items: new Map(), tokens: [] as string[], rejected: new Set<string>() } as StubApi;
  const server: Server = createServer(async (req, res) => {
    const problem = (status: number, code: string, title: string, detail: string) => {
      res.writeHead(status, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title, status, detail, code }));
    };
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return problem(401, 'missing_token', 'Unauthorized', 'no token');
    stub.tokens.push(token);
    if (stub.rejected.has(token)) return problem(401, 'invalid_token', 'Unauthorized', 'the access token is not valid');
    let scopes: string[];
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: options.issuer, audience: options.audience, typ: 'at+jwt' });
      scopes = String(payload.scope ?? '').split(' ');
    } catch {
      return problem(401, 'invalid_token', 'Unauthorized', 'the access token is not valid');
    }
    const path = new URL(req.url ?? '/', 'http://stub').pathname;
    const match = new RegExp(`^/api/v1/${collection}(?:/(\\d+))?$`).exec(path);
    if (!match) return problem(404, 'not_found', 'Not Found', 'no such path');
    const write = req.method !== 'GET';
    const needed = `${collection}:${write ? 'write' : 'read'}`;
    if (!scopes.includes(needed)) return problem(403, 'insufficient_scope', 'Forbidden', `this request needs the scope ${needed}`);
    if (req.method === 'GET' && !match[1]) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify([...stub.items.values()]));
    }
    if (req.method === 'POST' && !match[1]) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const item = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number };
      if (stub.items.has(item.id)) return problem(409, 'duplicate_id', 'Conflict', `${collection} already has an item with id ${item.id}`);
      stub.items.set(item.id, item);
      res.writeHead(201, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(item));
    }
    if (req.method === 'DELETE' && match[1]) {
      if (!stub.items.delete(Number(match[1]))) return problem(404, 'item_not_found', 'Not Found', `${collection} has no item with id ${match[1]}`);
      res.writeHead(204);
      return res.end();
    }
    return problem(405, 'method_not_allowed', 'Method Not Allowed', 'no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return stub;
}
