/** `config:check`: the start-up lines and exit 1, or one ok line; nothing opened, nothing listening. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../src/config-check.ts', import.meta.url));
const PRODUCTION = {
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  API_AUDIENCE: 'https://api.example.com/api',
  API_PUBLIC_URL: 'https://api.example.com',
  API_INTROSPECTION_CLIENT_SECRET: 'a-real-secret',
};
const check = (env: Record<string, string>, cwd?: string) => {
  const r = spawnSync(process.execPath, [SCRIPT], { env, cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('api config:check', () => {
  it('a valid environment: one ok line without the secret, exit 0, no database file made', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-api-check-'));
    expect(check({ ...PRODUCTION, API_DATABASE_URL: `sqlite:${join(dir, 'api.db')}` })).toEqual({
      status: 0,
      stdout: `api: configuration ok (production; public URL https://api.example.com; issuer https://id.example.com; audience https://api.example.com/api; database sqlite:${join(dir, 'api.db')}; collections movies, customers, cars, users)\n`,
      stderr: '',
    });
    expect(existsSync(join(dir, 'api.db'))).toBe(false);
  });

  it('a refused one: every problem, one line each, exit 1', () => {
    const { AUTH_ISSUER: _i, ...rest } = PRODUCTION;
    expect(check({ ...rest, API_AUDIENCE_: 'x' })).toEqual({
      status: 1,
      stdout: '',
      stderr: [
        'api: invalid settings:',
        '  API_AUDIENCE_: not a setting of api; did you mean API_AUDIENCE?',
        "  AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
        '',
      ].join('\n'),
    });
  });

  it('a misspelt NODE_ENV: refused with the mode meant, in the one list', () => {
    expect(check({ ...PRODUCTION, NODE_ENV: 'prod', API_PUBLIC_URL: '' })).toEqual({
      status: 1,
      stdout: '',
      stderr: [
        'api: invalid settings:',
        '  NODE_ENV=prod: not one of development, test, production; did you mean production?',
        '  API_PUBLIC_URL: Invalid URL',
        '',
      ].join('\n'),
    });
  });

  it('development defaults, run in an empty directory: ok, and the directory stays empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-api-check-'));
    const run = check({ PATH: process.env.PATH ?? '' }, dir);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^api: configuration ok \(development; .*; database sqlite:\.\/data\/api\.db; /);
    expect(readdirSync(dir)).toEqual([]);
  });
});
