/** Migrations as their own step for both relying-party apps, through the real entry points. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clientMigrations } from '../src/storage/migrations.ts';
import { childEnv, APPS } from '../src/launcher.ts';

const appDir = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'client-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Without CLIENT_DATABASE_URL each app has its own SQLite file in CLIENT_DATA_DIR.
const one = `sqlite:${join(dir, 'app-one.db')}`;
const two = `sqlite:${join(dir, 'app-two.db')}`;
const env = { PATH: process.env.PATH ?? '', CLIENT_MIGRATE: 'manual', CLIENT_DATA_DIR: dir, LOG_LEVEL: 'silent' };
const all = Object.keys(clientMigrations);
const plural = all.length === 1 ? '' : 's';
const list = `${all.length} migration${plural}`;

describe('CLIENT_MIGRATE and the migrate script', () => {
  it('the launcher passes CLIENT_MIGRATE to both apps', () => {
    for (const app of APPS) expect(childEnv(app, { CLIENT_MIGRATE: 'manual', CLIENT_SECRET: 'not-passed' }).CLIENT_MIGRATE).toBe('manual');
  });

  it('an app refuses a schema that is behind with one line; migrate applies both apps\' schemas once', () => {
    const refused = spawnSync(process.execPath, ['src/main.ts'], { cwd: appDir, env: childEnv(APPS[0]!, env), encoding: 'utf8', timeout: 30_000 });
    expect({ status: refused.status, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: `app-one: the client database schema is behind (${all.length} pending migration${plural}: ${all.join(', ')}); run \`pnpm --filter @gatehouse/client migrate\` first, or set CLIENT_MIGRATE=auto\n`,
    });
    const migrate = () => spawnSync(process.execPath, ['src/migrate.ts'], { cwd: appDir, env, encoding: 'utf8', timeout: 30_000 });
    const first = migrate();
    expect({ status: first.status, stdout: first.stdout, stderr: first.stderr }).toEqual({
      status: 0,
      stdout: `app-one: applied ${list} to ${one}: ${all.join(', ')}\napp-two: applied ${list} to ${two}: ${all.join(', ')}\n`,
      stderr: '',
    });
    expect(migrate().stdout).toBe(`app-one: the schema of ${one} is already up to date\napp-two: the schema of ${two} is already up to date\n`);
  });
});
