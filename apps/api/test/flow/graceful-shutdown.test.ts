/**
 * SIGTERM during a burst of requests to the real API process (node src/main.ts): every request
 * the server accepted finishes with 200 (the access log and the client agree one for one); the
 * only failures are connections the server never accepted (refused, or reset by the kernel from
 * the listen backlog as the listener closes: a load balancer retries those elsewhere); the
 * process exits 0 with nothing on stderr.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'api-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

type Outcome = { status: number } | { error: string };
const get = (port: number, path: string) =>
  new Promise<Outcome>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end();
  });

describe('SIGTERM to the API process', () => {
  it('finishes every accepted request, refuses new ones, and exits 0 without a stack trace', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd: appDir,
      env: { PATH: process.env.PATH ?? '', API_PORT: String(port), API_DATABASE_URL: `sqlite:${join(dir, 'api.db')}`, API_REVOCATION_FEED: 'false', AUTH_ISSUER: 'http://127.0.0.1:9', LOG_LEVEL: 'info' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 200 && !stdout.includes('API listening'); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(stdout).toContain('API listening');

    // A bounded burst on loopback: 300 requests, 30 at a time, SIGTERM in the middle.
    const outcomes: Outcome[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < 300) {
        sent += 1;
        if (sent === 150) child.kill('SIGTERM');
        outcomes.push(await get(port, '/api/openapi.json'));
      }
    };
    await Promise.all(Array.from({ length: 30 }, worker));
    const code = await exited;

    const ok = outcomes.filter((o) => 'status' in o && o.status === 200).length;
    const notAccepted = outcomes.filter((o) => 'error' in o && (o.error === 'ECONNREFUSED' || o.error === 'ECONNRESET')).length;
    expect(ok + notAccepted).toBe(300);
    expect(ok).toBeGreaterThanOrEqual(120);
    const served = stdout
      .split('\n')
      .filter((line) => line.includes('"event":"http_request"'))
      .map((line) => JSON.parse(line) as { status: number; path: string });
    expect(served.length).toBe(ok);
    expect(served.every((r) => r.status === 200 && r.path === '/api/openapi.json')).toBe(true);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('"event":"shutdown.started"');
    expect(stdout).toContain('"event":"shutdown.done"');
  }, 60_000);
});
