import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { anyShape, fc, fuzzRequest, fuzzSettings, parserRejection, problemJson, runFuzz, sendRaw, type FuzzTarget } from '../src/index.ts';

let server: Server | undefined;

async function serve(handler: RequestListener): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const problem = (status: number) => JSON.stringify({ type: 'about:blank', title: 'x', status });
const settings = (numRuns: number) => ({ seed: 42, numRuns, path: undefined, timeoutMs: 60_000 });
const routes = [{ path: '/items/:id', methods: ['GET', 'PUT'] }];
const quiet = () => undefined;

describe('sendRaw', () => {
  it('puts odd paths and repeated headers on the wire as written and reads chunked answers', async () => {
    const url = await serve((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.write(JSON.stringify({ url: req.url, auth: req.headersDistinct.authorization }));
      res.end();
    });
    const response = await sendRaw(url, { method: 'GET', path: '/a/%2f/../b?x=1&x=2', headers: [['Authorization', 'a'], ['Authorization', 'b']] });
    expect(response.status).toBe(200);
    expect(response.header('transfer-encoding')).toBe('chunked');
    expect(JSON.parse(response.text)).toEqual({ url: '/a/%2f/../b?x=1&x=2', auth: ['a', 'b'] });
  });

  it("reports Node's parser rejection as an answer without a body", async () => {
    const url = await serve((_req, res) => res.end('never'));
    const response = await sendRaw(url, { method: 'GET', path: '/a\u0000b', headers: [] });
    expect(response.status).toBe(400);
    expect(parserRejection(response, { method: 'GET', path: '/', headers: [] })).toBeUndefined();
  });
});

describe('runFuzz', () => {
  it('passes an app that answers every request with a problem document, and prints seed and counts', async () => {
    const url = await serve((req, res) => {
      res.writeHead(req.url === '/healthz' ? 200 : 404, { 'Content-Type': 'application/problem+json', 'X-Request-Id': '1' });
      res.end(problem(req.url === '/healthz' ? 200 : 404));
    });
    const lines: string[] = [];
    const target: FuzzTarget = { url, errorShape: anyShape(problemJson, parserRejection) };
    const report = await runFuzz('well-behaved', target, fuzzRequest({ routes }), { runs: 0, command: 'x', settings: settings(60), log: (l) => lines.push(l) });
    expect(report.requests).toBe(60);
    expect(lines[0]).toBe('[fuzz] well-behaved: seed=42 runs=60');
    expect(lines[1]).toMatch(/^\[fuzz\] well-behaved: 60 requests in \d+\.\d s \(/);
  });

  it('fails on a 500 with the counterexample and the replay command, and the replay reproduces it', async () => {
    const url = await serve((req, res) => {
      const status = req.method === 'PUT' ? 500 : 404;
      res.writeHead(status, { 'Content-Type': 'application/problem+json', 'X-Request-Id': '1' });
      res.end(problem(status));
    });
    const target: FuzzTarget = { url, errorShape: anyShape(problemJson, parserRejection) };
    const failure = await runFuzz('put-fails', target, fuzzRequest({ routes }), { runs: 0, command: 'pnpm exec vitest run t', settings: settings(200), log: quiet }).catch(
      (e: Error) => e,
    );
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain('status 500');
    expect(message).toMatch(/^PUT "/m);
    const replay = /replay: FUZZ_SEED=(-?\d+) FUZZ_PATH=(\S+) pnpm exec vitest run t$/m.exec(message);
    expect(replay).not.toBeNull();
    const again = await runFuzz('put-fails', target, fuzzRequest({ routes }), {
      runs: 0,
      command: 'x',
      settings: { ...settings(200), seed: Number(replay![1]), path: replay![2] },
      log: quiet,
    }).catch((e: Error) => e);
    expect((again as Error).message).toContain('status 500');
  });

  it('fails on a stack trace, a wrong shape, a state change from a refused request, and a dead liveness probe', async () => {
    let stored = 0;
    const cases: [string, RequestListener, string][] = [
      ['stack', (_q, s) => (s.writeHead(404, { 'Content-Type': 'text/plain' }), s.end('TypeError: x\n    at f (/srv/app.ts:1:2)')), 'a stack frame'],
      ['shape', (_q, s) => (s.writeHead(404, { 'Content-Type': 'application/json', 'X-Request-Id': '1' }), s.end('{}')), 'in no contract shape'],
      ['state', (_q, s) => ((stored += 1), s.writeHead(404, { 'Content-Type': 'application/problem+json', 'X-Request-Id': '1' }), s.end(problem(404))), 'changed the stored state'],
    ];
    for (const [name, handler, expected] of cases) {
      const url = await serve(handler);
      const target: FuzzTarget = { url, errorShape: anyShape(problemJson, parserRejection), snapshot: async () => String(stored) };
      const failure = await runFuzz(name, target, fuzzRequest({ routes }), { runs: 0, command: 'x', settings: settings(20), log: quiet }).catch((e: Error) => e);
      expect((failure as Error).message, name).toContain(expected);
      server!.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
    const url = await serve((_q, s) => (s.writeHead(404, { 'Content-Type': 'application/problem+json', 'X-Request-Id': '1' }), s.end(problem(404))));
    const failure = await runFuzz('dead', { url, errorShape: problemJson }, fc.constant({ method: 'GET', path: '/', headers: [] }), {
      runs: 0,
      command: 'x',
      settings: settings(3),
      log: quiet,
    }).catch((e: Error) => e);
    expect((failure as Error).message).toBe('[fuzz] dead: after 3 requests the app no longer answers GET /healthz with 200: 404');
  });
});

describe('fuzzSettings', () => {
  it('reads FUZZ_SEED, FUZZ_RUNS and FUZZ_PATH, with fixed defaults', () => {
    expect(fuzzSettings(500, {})).toEqual({ seed: 20_261_123, numRuns: 500, path: undefined, timeoutMs: 60_000 });
    expect(fuzzSettings(500, { FUZZ_SEED: '-7', FUZZ_RUNS: '5000', FUZZ_PATH: '3:1:0' })).toEqual({ seed: -7, numRuns: 5000, path: '3:1:0', timeoutMs: 200_000 });
    expect(() => fuzzSettings(500, { FUZZ_RUNS: 'many' })).toThrow('FUZZ_RUNS must be a positive integer, got "many"');
    expect(() => fuzzSettings(500, { FUZZ_SEED: '1.5' })).toThrow('FUZZ_SEED must be an integer, got "1.5"');
  });
});
