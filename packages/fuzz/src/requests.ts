/**
 * Whole requests: a target (targets.ts), a header set (headers.ts) and a body (bodies.ts).
 * Rules: a body is sent with most methods, GET and HEAD included (a body where none is expected
 * is one more thing to get wrong); the body's Content-Type lines come last.
 */
import fc from 'fast-check';
import { bodyCase, type BodyOptions } from './bodies.ts';
import { headerSet, type HeaderOptions } from './headers.ts';
import type { FuzzRequest } from './send-raw.ts';
import { targetFor, type RouteSpec } from './targets.ts';

export interface RequestOptions {
  readonly routes: readonly RouteSpec[];
  readonly headers?: HeaderOptions;
  readonly bodies?: BodyOptions;
}

/** A random, mostly hostile request to one of the routes. */
export function fuzzRequest(options: RequestOptions): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(targetFor(options.routes), headerSet(options.headers), bodyCase(options.bodies), fc.nat({ max: 3 }))
    .map(([target, headers, body, bodyOnRead]): FuzzRequest => {
      const reads = ['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(target.method.toUpperCase());
      const send = body.body !== undefined && (!reads || bodyOnRead === 0);
      return {
        method: target.method,
        path: target.path,
        headers: send ? [...headers, ...body.headers] : headers,
        ...(send ? { body: body.body } : {}),
      };
    });
}

/** A short, readable rendering of a request for failure reports. */
export function describeRequest(request: FuzzRequest, limit = 600): string {
  const cut = (s: string) => (s.length > limit ? `${s.slice(0, limit)}… (${s.length} chars)` : s);
  const lines = [`${request.method} ${cut(JSON.stringify(request.path))}`];
  for (const [name, value] of request.headers) lines.push(`  ${name}: ${cut(JSON.stringify(value))}`);
  if (request.body !== undefined) {
    lines.push(`  body: ${Buffer.isBuffer(request.body) ? `<bytes ${request.body.toString('hex').slice(0, limit)}>` : cut(JSON.stringify(request.body))}`);
  }
  return lines.join('\n');
}
