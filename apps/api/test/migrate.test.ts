/** Migrations as their own step for the API, through the real entry points (node src/main.ts, node src/migrate.ts). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { apiMigrations } from '../src/storage/migrations.ts';
import { loadConfig } from '../src/config/config.ts';

const appDir = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'api-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const url = `sqlite:${join(dir, 'api.db')}`;
const env = { PATH: process.env.PATH ?? '', API_DATABASE_URL: url, API_MIGRATE: 'manual', API_PORT: '0', LOG_LEVEL: 'silent' };
const all = Object.keys(apiMigrations);
const run = (script: string) => {
  const r = spawnSync(process.execPath, [script], { cwd: appDir, env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('API_MIGRATE and the migrate script', () => {
  it('defaults to auto in development and manual in production', () => {
    expect(loadConfig({}).migrate).toBe('auto');
    expect(loadConfig({ NODE_ENV: 'production', AUTH_ISSUER: 'https://id.example.com', API_AUDIENCE: 'https://api.example.com/api', API_INTROSPECTION_CLIENT_SECRET: 'real-secret', API_PUBLIC_URL: 'https://api.example.com' }).migrate).toBe('manual');
    expect(loadConfig({ NODE_ENV: 'production', AUTH_ISSUER: 'https://id.example.com', API_AUDIENCE: 'https://api.example.com/api', API_INTROSPECTION_CLIENT_SECRET: 'real-secret', API_PUBLIC_URL: 'https://api.example.com', API_MIGRATE: 'auto' }).migrate).toBe('auto');
    expect(() => loadConfig({ API_MIGRATE: 'sometimes' })).toThrow(/^invalid setting API_MIGRATE: /);
  });

  it('the server refuses a schema that is behind with one line; migrate applies it once', () => {
    expect(run('src/main.ts')).toEqual({
      status: 1,
      stdout: '',
      stderr: `api: the api database schema is behind (${all.length} pending migration${all.length === 1 ? '' : 's'}: ${all.join(', ')}); run \`pnpm --filter @gatehouse/api migrate\` first, or set API_MIGRATE=auto\n`,
    });
    expect(run('src/migrate.ts')).toEqual({
      status: 0,
      stdout: `api: applied ${all.length} migration${all.length === 1 ? '' : 's'} to ${url}: ${all.join(', ')}\n`,
      stderr: '',
    });
    expect(run('src/migrate.ts').stdout).toBe(`api: the schema of ${url} is already up to date\n`);
  });
});
