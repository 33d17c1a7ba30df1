/** `config:check`: one app (CLIENT_ID set) or both launcher apps; the start-up lines and exit 1, or an ok line; nothing written. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../src/config-check.ts', import.meta.url));
const SHARED = {
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'production',
  AUTH_ISSUER: 'https://id.example.com',
  API_URL: 'https://api.example.com',
  CLIENT_DATABASE_URL: 'postgres://client:hunter2@db.internal:5432/client',
};
const KEYS = 'k'.repeat(32);
const check = (env: Record<string, string>, cwd?: string) => {
  const r = spawnSync(process.execPath, [SCRIPT], { env, cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('client config:check', () => {
  it('one app by CLIENT_ID: an ok line, the password redacted, exit 0', () => {
    expect(check({ ...SHARED, CLIENT_ID: 'shop', CLIENT_URL: 'https://shop.example.com', CLIENT_SECRET: 'a-real-secret-123', CLIENT_COOKIE_KEYS: KEYS })).toEqual({
      status: 0,
      stdout: 'shop: configuration ok (production; URL https://shop.example.com; issuer https://id.example.com; API https://api.example.com; database postgres://client:***@db.internal:5432/client)\n',
      stderr: '',
    });
  });

  it('the launcher apps: an ok line naming both, exit 0', () => {
    const run = check({ ...SHARED, APP_ONE_URL: 'https://one.example.com', APP_ONE_CLIENT_SECRET: 'a-real-secret-123', APP_ONE_COOKIE_KEYS: KEYS, APP_TWO_URL: 'https://two.example.com', APP_TWO_CLIENT_SECRET: 'another-secret-456', APP_TWO_COOKIE_KEYS: KEYS });
    expect(run).toEqual({
      status: 0,
      stdout:
        'client: configuration ok (production; issuer https://id.example.com; API https://api.example.com; app-one https://one.example.com, database postgres://client:***@db.internal:5432/client; app-two https://two.example.com, database postgres://client:***@db.internal:5432/client)\n',
      stderr: '',
    });
  });

  it("the launcher apps in production: the launcher's problems and both apps' in one list, each once, exit 1", () => {
    const { AUTH_ISSUER: _i, API_URL: _a, ...rest } = SHARED;
    const run = check({ ...rest, APP_ONE_URL: 'https://one.example.com', APP_ONE_CLIENT_SECRET: 'a-real-secret-123', APP_ONE_COOKIE_KEYS: KEYS, CLIENT_MIGRAT: 'manual' });
    expect(run).toEqual({
      status: 1,
      stdout: '',
      stderr: [
        'client: invalid settings:',
        "  CLIENT_MIGRAT: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean CLIENT_MIGRATE?",
        '  APP_TWO_URL must be set when NODE_ENV=production (the public https URL of app-two; its /callback is the registered redirect URI)',
        "  AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
        "  API_URL must be set when NODE_ENV=production (the API's public URL, its API_PUBLIC_URL)",
        '  app-two (APP_TWO_*): CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set when NODE_ENV=production',
        '',
      ].join('\n'),
    });
  });

  it('a misspelt NODE_ENV is refused with the mode meant, for one app as for the launcher', () => {
    const line = 'NODE_ENV=prod: not one of development, test, production; did you mean production?';
    expect(check({ ...SHARED, NODE_ENV: 'prod', CLIENT_ID: 'shop', CLIENT_URL: 'https://shop.example.com', CLIENT_SECRET: 'a-real-secret-123', CLIENT_COOKIE_KEYS: KEYS })).toEqual({ status: 1, stdout: '', stderr: `shop: ${line}\n` });
    const launcher = check({ ...SHARED, NODE_ENV: 'prod', APP_ONE_URL: 'https://one.example.com', APP_ONE_CLIENT_SECRET: 'a-real-secret-123', APP_ONE_COOKIE_KEYS: KEYS, APP_TWO_URL: 'https://two.example.com', APP_TWO_CLIENT_SECRET: 'another-secret-456', APP_TWO_COOKIE_KEYS: KEYS });
    expect(launcher).toEqual({ status: 1, stdout: '', stderr: `client: ${line}\n` });
  });

  it('development defaults, run in an empty directory: the keys a start would generate are named, not written; the directory stays empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-client-check-'));
    expect(check({ PATH: SHARED.PATH }, dir)).toEqual({
      status: 0,
      stdout:
        'client: configuration ok (development; issuer http://localhost:3000; API http://localhost:4000; app-one http://localhost:3001, database sqlite:./data/app-one.db; app-two http://localhost:3002, database sqlite:./data/app-two.db; development keys would be generated at first start in data/app-one-secrets.json, data/app-two-secrets.json)\n',
      stderr: '',
    });
    expect(check({ PATH: SHARED.PATH, CLIENT_ID: 'app-one' }, dir)).toMatchObject({ status: 0, stderr: '' });
    expect(readdirSync(dir)).toEqual([]);
  });
});
