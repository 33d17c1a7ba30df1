import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const appDir = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'authctl-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function authctl(args: string[], input: string) {
  // Only what the CLI needs: no inherited AUTH_* settings can point it at a real database.
  const env = { PATH: process.env.PATH ?? '', AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir };
  return spawnSync(process.execPath, ['src/cli/main.ts', ...args], { cwd: appDir, env, input, encoding: 'utf8', timeout: 30_000 });
}

describe('node src/cli/main.ts', () => {
  it('adds a user with the password piped on stdin, then refuses a duplicate with one line and exit 1', () => {
    const added = authctl(['user', 'add', 'dave', '--email', 'dave@example.com', '--name', 'Dave', '--password-stdin', '--json'], 'a long password\n');
    // The only stderr line is the audit event of the user service (admin/user-admin.ts).
    expect(added.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ event: 'admin.user.created', actor_kind: 'operator', actor: 'cli', password_set: true }),
    ]);
    expect(added.stderr).not.toContain('a long password');
    expect(added.status).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ username: 'dave', email: 'dave@example.com', name: 'Dave', groups: [] });

    const again = authctl(['user', 'add', 'dave', '--email', 'dave@example.com', '--name', 'Dave', '--password-stdin'], 'a long password\n');
    expect({ status: again.status, stdout: again.stdout, stderr: again.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr: 'authctl: error: username "dave" is already taken\n',
    });

    const unknown = authctl(['frob'], '');
    expect({ status: unknown.status, stderr: unknown.stderr }).toEqual({
      status: 2,
      stderr: 'authctl: error: unknown command "frob" (run "authctl help" for usage)\n',
    });
  });
});
