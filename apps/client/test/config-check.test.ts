/** `config:check`: one app (CLIENT_ID set) or both launcher apps; the start-up lines and exit 1, or ok lines. */
import { spawnSync } from 'node:child_process';
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
const check = (env: Record<string, string>) => {
  const r = spawnSync(process.execPath, [SCRIPT], { env, encoding: 'utf8', timeout: 30_000 });
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

  it('the launcher apps: each checked, a missing public URL refused, exit 1', () => {
    const run = check({ ...SHARED, APP_ONE_URL: 'https://one.example.com', APP_ONE_CLIENT_SECRET: 'a-real-secret-123', APP_ONE_COOKIE_KEYS: KEYS });
    expect(run).toEqual({
      status: 1,
      stdout: 'app-one: configuration ok (production; URL https://one.example.com; issuer https://id.example.com; API https://api.example.com; database postgres://client:***@db.internal:5432/client)\n',
      stderr: 'app-two: APP_TWO_URL must be set when NODE_ENV=production (the public https URL of app-two; its /callback is the registered redirect URI)\n',
    });
  });

  it('a misspelt launcher variable is refused for both apps, not dropped', () => {
    const run = check({ ...SHARED, APP_ONE_URL: 'https://one.example.com', APP_TWO_URL: 'https://two.example.com', CLIENT_MIGRAT: 'manual' });
    const line = "invalid setting CLIENT_MIGRAT: not a setting of the launcher (each app's settings are APP_ONE_* / APP_TWO_*); did you mean CLIENT_MIGRATE?";
    expect(run).toEqual({ status: 1, stdout: '', stderr: `app-one: ${line}\napp-two: ${line}\n` });
  });
});
