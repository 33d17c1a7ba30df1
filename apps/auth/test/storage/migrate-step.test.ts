/**
 * Migrations as their own step, through the real entry points: the server refuses a schema
 * that is behind under AUTH_MIGRATE=manual with one line, `authctl db status|migrate` report
 * and apply, and the server then starts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { authMigrations } from '../../src/storage/migrations.ts';

const appDir = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'auth-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '', AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir, AUTH_MIGRATE: 'manual', AUTH_PORT: '0', AUTH_DEV_SEED: 'false' };
const all = Object.keys(authMigrations);
const run = (args: string[]) => spawnSync(process.execPath, args, { cwd: appDir, env, encoding: 'utf8', timeout: 30_000 });

describe('AUTH_MIGRATE=manual and authctl db', () => {
  it('refuses to start on a schema that is behind, with one line naming the step', () => {
    const server = run(['src/main.ts']);
    expect({ status: server.status, stdout: server.stdout, stderr: server.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `auth: the auth database schema is behind (${all.length} pending migrations: ${all.join(', ')}); run \`authctl db migrate\` first, or set AUTH_MIGRATE=auto\n`,
    });
  });

  // Five CLI runs and a server start, each a fresh Node process: room for a busy machine.
  it('db status lists what is pending, db migrate applies it once, then the server starts', async () => {
    expect(JSON.parse(run(['src/cli/main.ts', 'db', 'status', '--json']).stdout)).toEqual({ pending: all });
    const migrated = run(['src/cli/main.ts', 'db', 'migrate']);
    expect({ status: migrated.status, stdout: migrated.stdout, stderr: migrated.stderr }).toEqual({
      status: 0,
      stdout: `applied ${all.length} migrations: ${all.join(', ')}\n`,
      stderr: '',
    });
    expect(run(['src/cli/main.ts', 'db', 'migrate']).stdout).toBe('the auth schema is already up to date\n');
    expect(run(['src/cli/main.ts', 'db', 'status']).stdout).toBe('the auth schema is up to date\n');
    expect(run(['src/cli/main.ts', 'db', 'frob']).stderr).toBe('authctl: error: unknown command "db frob" (run "authctl help" for usage)\n');

    const server = spawn(process.execPath, ['src/main.ts'], { cwd: appDir, env: { ...env, LOG_LEVEL: 'info' } });
    let out = '';
    server.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 300 && !out.includes('authorization server listening'); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(out).toContain('authorization server listening');
    server.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 90_000);
});
