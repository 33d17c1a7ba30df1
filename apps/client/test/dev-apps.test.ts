import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('pnpm dev: app-one and app-two in one process', () => {
  it('serves each app on its own port with its own settings, database and secrets, labels each line, and stops both on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gh-dev-apps-'));
    const [one, two, oneMetrics, twoMetrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const child = spawn(process.execPath, [fileURLToPath(new URL('../src/dev.ts', import.meta.url))], {
      env: {
        PATH: process.env.PATH ?? '',
        CLIENT_DATA_DIR: dataDir,
        APP_ONE_URL: `http://localhost:${one}`,
        APP_TWO_URL: `http://localhost:${two}`,
        APP_ONE_METRICS_PORT: String(oneMetrics),
        APP_TWO_METRICS_PORT: String(twoMetrics),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // However the test ends, the process does not outlive it.
    onTestFinished(() => void child.kill('SIGKILL'));
    try {
      // Both are started once both "listening" lines are out (no clock involved).
      await new Promise<void>((resolve, reject) => {
        const check = () => {
          if (/\[app-one\] .*app-one listening/.test(stdout) && /\[app-two\] .*app-two listening/.test(stdout)) resolve();
        };
        child.stdout.on('data', check);
        child.once('exit', () => reject(new Error(`exited before listening:\n${stdout}\n${stderr}`)));
      });
      expect((await fetch(`http://localhost:${one}/healthz`)).status).toBe(200);
      expect((await fetch(`http://localhost:${two}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${oneMetrics}/metrics`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${twoMetrics}/metrics`)).status).toBe(200);
      // SQLite's -wal and -shm files sit beside each database.
      expect(readdirSync(dataDir).filter((file) => !/-(wal|shm)$/.test(file)).sort()).toEqual(['app-one-secrets.json', 'app-one.db', 'app-two-secrets.json', 'app-two.db']);
      const secrets = (clientId: string) => JSON.parse(readFileSync(join(dataDir, `${clientId}-secrets.json`), 'utf8')) as unknown;
      expect(secrets('app-one')).not.toEqual(secrets('app-two'));
      // Every line is labelled with its app and formatted for a terminal (no pino JSON).
      const lines = stdout.split('\n').filter((line) => line !== '');
      expect(lines.every((line) => /^\[app-(one|two)\] \d\d:\d\d:\d\d [A-Z]+ /.test(line))).toBe(true);
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[app-one\\] \\d\\d:\\d\\d:\\d\\d INFO  app-one listening on http://127\\.0\\.0\\.1:${one} `)));
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[app-two\\] \\d\\d:\\d\\d:\\d\\d INFO  app-two listening on http://127\\.0\\.0\\.1:${two} `)));
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/\[app-one\] .*INFO  stopped/);
    expect(stdout).toMatch(/\[app-two\] .*INFO  stopped/);
  }, 30_000);
});
