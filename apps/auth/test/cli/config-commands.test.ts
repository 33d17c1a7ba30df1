import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.ts';

const KEY = Buffer.alloc(32, 7).toString('base64url');
const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  AUTH_API_AUDIENCE: 'https://api.example.com/api',
  AUTH_COOKIE_KEYS: 'c'.repeat(32),
  AUTH_ENCRYPTION_KEY: KEY,
  AUTH_DATABASE_URL: 'postgres://gatehouse:hunter2@db.internal:5432/auth',
};

async function cli(argv: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdin: '', stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env });
  return { code, stdout, stderr };
}

describe('authctl config check', () => {
  it('a valid production environment: one ok line, no secret, nothing opened, exit 0', async () => {
    expect(await cli(['config', 'check'], PRODUCTION)).toEqual({
      code: 0,
      stdout: 'auth: configuration ok (production; issuer https://id.example.com; audience https://api.example.com/api; database postgres://gatehouse:***@db.internal:5432/auth; migrations manual)\n',
      stderr: '',
    });
  });

  it('a misspelt issuer under production: the lines start-up would print, every problem, exit 1', async () => {
    const { AUTH_ISSUER: issuer, ...rest } = PRODUCTION;
    expect(await cli(['config', 'check'], { ...rest, AUTH_ISUER: issuer, AUTH_DEV_SEED: 'true' })).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'auth: invalid settings:',
        '  AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?',
        '  AUTH_ISSUER must be set when NODE_ENV=production (the public https URL of this server, e.g. https://id.example.com)',
        '  AUTH_DEV_SEED must not be true when NODE_ENV=production: it creates the demo user and registers the development clients with their public secrets',
        '',
      ].join('\n'),
    });
  });

  it('never opens the database: a SQLite file is not created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-config-check-'));
    const { AUTH_DATABASE_URL: _url, ...rest } = PRODUCTION;
    const run = await cli(['config', 'check'], { ...rest, AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}` });
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, 'auth.db'))).toBe(false);
  });

  it('a misspelt NODE_ENV is refused with the mode meant, listed with the production problems', async () => {
    const { AUTH_ISSUER: _issuer, ...rest } = PRODUCTION;
    expect(await cli(['config', 'check'], { ...rest, NODE_ENV: 'prod' })).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'auth: invalid settings:',
        '  NODE_ENV=prod: not one of development, test, production; did you mean production?',
        '  AUTH_ISSUER must be set when NODE_ENV=production (the public https URL of this server, e.g. https://id.example.com)',
        '',
      ].join('\n'),
    });
  });

  it('development in an empty directory: the secrets a start would generate are named, not written; the directory stays empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-config-check-'));
    const data = join(dir, 'data');
    expect(await cli(['config', 'check'], { AUTH_DATA_DIR: data, AUTH_DATABASE_URL: `sqlite:${join(data, 'auth.db')}` })).toEqual({
      code: 0,
      stdout: `auth: configuration ok (development; issuer http://localhost:3000; audience http://localhost:4000/api; database sqlite:${join(data, 'auth.db')}; migrations auto; development secrets would be generated at first start in ${join(data, 'auth-secrets.json')})\n`,
      stderr: '',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('usage errors exit 2', async () => {
    expect(await cli(['config', 'verify'], PRODUCTION)).toEqual({ code: 2, stdout: '', stderr: 'authctl: error: unknown command "config verify" (run "authctl help" for usage)\n' });
    expect(await cli(['config'], PRODUCTION)).toEqual({ code: 2, stdout: '', stderr: 'authctl: error: config: missing subcommand (check) (run "authctl help" for usage)\n' });
  });
});
