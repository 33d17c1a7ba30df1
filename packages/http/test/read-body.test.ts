import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyError, readRequestBody, type BodyReaderOptions } from '../src/read-body.ts';

const LIMIT = 64;
const JSON_ONLY: BodyReaderOptions = { limit: LIMIT, accept: ['application/json'] };
const ALL: BodyReaderOptions = { limit: LIMIT, accept: ['application/json', 'application/*+json', 'application/x-www-form-urlencoded'], jsonObject: true };

type Outcome = { kind: 'json'; value: unknown } | { kind: 'form'; params: [string, string][] } | { status: number; code: string; limit: number } | { thrown: string };

/** What the reader made of the last request, recorded on the server side. */
let options: BodyReaderOptions = JSON_ONLY;
let settle: ((outcome: Outcome) => void) | undefined;
let arrived: (() => void) | undefined;
let server: Server;
let port = 0;

async function handle(req: IncomingMessage): Promise<Outcome> {
  try {
    const body = await readRequestBody(req, options);
    return body.kind === 'json' ? body : { kind: 'form', params: [...body.params] };
  } catch (thrown) {
    if (thrown instanceof BodyError) return { status: thrown.status, code: thrown.code, limit: thrown.limit };
    return { thrown: String(thrown) };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    arrived?.();
    void handle(req).then((outcome) => {
      settle?.(outcome);
      res.writeHead('status' in outcome ? outcome.status : 200, { connection: 'close' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Send {
  headers?: Record<string, string | number>;
  /** Written one after another; no Content-Length header means chunked. */
  chunks?: (string | Buffer)[];
  /** Break the connection after the chunks instead of ending the body. */
  abort?: boolean;
}

/** Sends one POST and resolves with what the reader made of it. */
async function send(opts: BodyReaderOptions, { headers = {}, chunks = [], abort = false }: Send): Promise<Outcome> {
  options = opts;
  const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
  const received = new Promise<void>((resolve) => (arrived = resolve));
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers });
  req.on('error', () => undefined); // a refused body may reset the connection; the outcome is read on the server
  req.on('response', (res) => res.resume());
  for (const chunk of chunks) {
    req.write(chunk);
    // Let the chunk reach the server on its own.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (abort) {
    // Break it only once the server is reading, so the break lands mid-body.
    await received;
    req.destroy();
  } else req.end();
  return outcome;
}

const json = (body: string, type = 'application/json'): Send => ({ headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) }, chunks: [body] });

describe('readRequestBody', () => {
  describe('limit', () => {
    it('refuses a declared Content-Length over the limit before reading a byte', async () => {
      // No body is ever sent: the answer can only come from the header.
      expect(await send(JSON_ONLY, { headers: { 'content-type': 'application/json', 'content-length': LIMIT + 1 } })).toEqual({ status: 413, code: 'payload_too_large', limit: LIMIT });
    });

    it('refuses a chunked body as soon as it grows over the limit', async () => {
      const half = `{"a":"${'x'.repeat(LIMIT / 2)}`;
      expect(await send(JSON_ONLY, { headers: { 'content-type': 'application/json' }, chunks: [half, half] })).toEqual({ status: 413, code: 'payload_too_large', limit: LIMIT });
    });

    it('takes a body of exactly the limit, chunked or declared', async () => {
      const body = `{"a":"${'x'.repeat(LIMIT - 8)}"}`;
      expect(Buffer.byteLength(body)).toBe(LIMIT);
      expect(await send(JSON_ONLY, json(body))).toEqual({ kind: 'json', value: { a: 'x'.repeat(LIMIT - 8) } });
      expect(await send(JSON_ONLY, { headers: { 'content-type': 'application/json' }, chunks: [body.slice(0, 10), body.slice(10)] })).toEqual({
        kind: 'json',
        value: { a: 'x'.repeat(LIMIT - 8) },
      });
    });
  });

  describe('content types', () => {
    it.each([
      ['application/json', JSON_ONLY],
      ['Application/JSON', JSON_ONLY],
      ['application/json; charset=utf-8', JSON_ONLY],
      ['application/vnd.gatehouse.v2+json', ALL],
      ['application/problem+json', ALL],
    ])('takes %s', async (type, opts) => {
      expect(await send(opts, json('{"a":1}', type))).toEqual({ kind: 'json', value: { a: 1 } });
    });

    it.each([
      ['text/plain', JSON_ONLY],
      ['application/xml', ALL],
      ['application/x-www-form-urlencoded', JSON_ONLY],
      ['application/vnd.gatehouse.v2+json', JSON_ONLY],
      ['application/jsonx', ALL],
      ['multipart/form-data; boundary=x', ALL],
    ])('refuses %s when not accepted', async (type, opts) => {
      expect(await send(opts, json('{"a":1}', type))).toEqual({ status: 415, code: 'unsupported_media_type', limit: LIMIT });
    });

    it('refuses a body without a Content-Type', async () => {
      expect(await send(ALL, { headers: { 'content-length': 7 }, chunks: ['{"a":1}'] })).toEqual({ status: 415, code: 'unsupported_media_type', limit: LIMIT });
    });

    it('returns a form body as its parameters, in order, repeats kept', async () => {
      const body = 'b=2&a=%C3%A9&b=3&constructor=x';
      expect(await send(ALL, json(body, 'application/x-www-form-urlencoded'))).toEqual({
        kind: 'form',
        params: [
          ['b', '2'],
          ['a', 'é'],
          ['b', '3'],
          ['constructor', 'x'],
        ],
      });
    });
  });

  describe('charset', () => {
    it.each(['utf-8', 'UTF-8', '"utf-8"'])('takes charset=%s', async (charset) => {
      expect(await send(JSON_ONLY, json('{"a":"é"}', `application/json; charset=${charset}`))).toEqual({ kind: 'json', value: { a: 'é' } });
    });

    it.each(['application/json; charset=latin1', 'application/x-www-form-urlencoded; charset=iso-8859-1', 'application/json;charset=utf-16'])('refuses %s', async (type) => {
      expect(await send(ALL, json('{"a":1}', type))).toEqual({ status: 415, code: 'unsupported_media_type', limit: LIMIT });
    });

    it('decodes a character split between two chunks', async () => {
      const bytes = Buffer.from('{"a":"é"}');
      const cut = bytes.indexOf(0xa9); // the second byte of é
      expect(await send(JSON_ONLY, { headers: { 'content-type': 'application/json' }, chunks: [bytes.subarray(0, cut), bytes.subarray(cut)] })).toEqual({
        kind: 'json',
        value: { a: 'é' },
      });
    });
  });

  describe('JSON', () => {
    it.each(['{"a":', '{a:1}', "{'a':1}", '{"a":1}}'])('refuses malformed JSON %s', async (body) => {
      expect(await send(JSON_ONLY, json(body))).toEqual({ status: 400, code: 'malformed_json', limit: LIMIT });
    });

    it.each(['[1]', 'null', '3', '"a"', 'true'])('refuses the non-object %s when an object is asked for', async (body) => {
      expect(await send(ALL, json(body))).toEqual({ status: 400, code: 'not_an_object', limit: LIMIT });
    });

    it('takes any JSON value when no object is asked for', async () => {
      expect(await send(JSON_ONLY, json('[1,2]'))).toEqual({ kind: 'json', value: [1, 2] });
    });

    it.each(['', ' \n\t'])('calls the body %j empty', async (body) => {
      expect(await send(JSON_ONLY, json(body))).toEqual({ status: 400, code: 'empty_body', limit: LIMIT });
    });

    it('takes an empty form body as no fields', async () => {
      expect(await send(ALL, json('', 'application/x-www-form-urlencoded'))).toEqual({ kind: 'form', params: [] });
    });
  });

  it('calls a connection that breaks before the body ends aborted', async () => {
    expect(await send(JSON_ONLY, { headers: { 'content-type': 'application/json', 'content-length': 40 }, chunks: ['{"a":'], abort: true })).toEqual({
      status: 400,
      code: 'aborted',
      limit: LIMIT,
    });
  });
});
