import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APPS, childEnv } from '../src/launcher.ts';

const [appOne, appTwo] = APPS as [(typeof APPS)[number], (typeof APPS)[number]];

describe('the launcher of app-one and app-two', () => {
  it('gives each app its own id, URL and port by default, sharing the rest', () => {
    const env = { AUTH_ISSUER: 'http://localhost:3000', LOG_LEVEL: 'debug', CLIENT_SECRET: 'never-shared', CLIENT_ID: 'x' };
    expect(childEnv(appOne, env)).toEqual({
      AUTH_ISSUER: 'http://localhost:3000',
      LOG_LEVEL: 'debug',
      CLIENT_ID: 'app-one',
      CLIENT_URL: 'http://localhost:3001',
      CLIENT_PORT: '3001',
    });
    expect(childEnv(appTwo, env)).toMatchObject({ CLIENT_ID: 'app-two', CLIENT_URL: 'http://localhost:3002', CLIENT_PORT: '3002' });
  });

  it('maps APP_ONE_* and APP_TWO_* onto each app', () => {
    const env = {
      APP_ONE_URL: 'https://one.example.com:8443/',
      APP_ONE_CLIENT_SECRET: 'secret-one',
      APP_ONE_COOKIE_KEYS: 'keys-one',
      APP_TWO_CLIENT_SECRET: 'secret-two',
      CLIENT_DATABASE_URL: 'postgres://db/two',
    };
    expect(childEnv(appOne, env)).toMatchObject({
      CLIENT_URL: 'https://one.example.com:8443',
      CLIENT_PORT: '8443',
      CLIENT_SECRET: 'secret-one',
      CLIENT_COOKIE_KEYS: 'keys-one',
    });
    const two = childEnv(appTwo, env);
    expect(two).toMatchObject({ CLIENT_SECRET: 'secret-two', CLIENT_DATABASE_URL: 'postgres://db/two' });
    expect(two.CLIENT_COOKIE_KEYS).toBeUndefined();
    expect(Object.keys(two).filter((name) => name.startsWith('APP_'))).toEqual([]);
  });

  it('gives each app its own metrics listener from APP_ONE_METRICS_* and APP_TWO_METRICS_*', () => {
    const env = { APP_ONE_METRICS_PORT: '9100', APP_ONE_METRICS_HOST: '0.0.0.0', APP_TWO_METRICS_PORT: '9101', CLIENT_METRICS_PORT: '1' };
    expect(childEnv(appOne, env)).toMatchObject({ CLIENT_METRICS_PORT: '9100', CLIENT_METRICS_HOST: '0.0.0.0' });
    const two = childEnv(appTwo, env);
    expect(two).toMatchObject({ CLIENT_METRICS_PORT: '9101' });
    expect(two.CLIENT_METRICS_HOST).toBeUndefined();
  });

  it('start refuses before starting either app, listing the launcher\'s problems and both apps\' at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-launcher-'));
    const start = fileURLToPath(new URL('../src/start.ts', import.meta.url));
    const run = spawnSync(process.execPath, [start], { cwd: dir, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', APP_ONE_URL: 'https://one.example.com' }, encoding: 'utf8', timeout: 30_000 });
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: [
        'client: invalid settings:',
        '  APP_TWO_URL must be set when NODE_ENV=production (the public https URL of app-two; its /callback is the registered redirect URI)',
        "  AUTH_ISSUER must be set when NODE_ENV=production (the authorization server's public https URL, its AUTH_ISSUER)",
        "  API_URL must be set when NODE_ENV=production (the API's public URL, its API_PUBLIC_URL)",
        '  app-one (APP_ONE_*): CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set when NODE_ENV=production',
        '  app-two (APP_TWO_*): CLIENT_SECRET and CLIENT_COOKIE_KEYS must be set when NODE_ENV=production',
        '',
      ].join('\n'),
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});
