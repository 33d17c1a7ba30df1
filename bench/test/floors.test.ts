import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Processes } from '../src/stack.ts';

// The refresh floors on SQLite, started as the suite starts them: the refresh floor
// (src/baselines/floor-adapter.ts) rotates durably; the checked refresh floor (checked-floor.ts)
// passes a refresh only with its account enabled and its session present, and audits each answer.
type Started = { port: number; secrets: { app: string }; refreshTokens: string[] };

let processes: Processes | undefined;
let dir: string | undefined;
afterEach(async () => {
  await processes?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  processes = dir = undefined;
});

async function refresh(floor: Started, token: string) {
  const response = await fetch(`http://127.0.0.1:${floor.port}/oauth2/v1/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`app:${floor.secrets.app}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function start(kind: 'refresh' | 'checked'): Promise<{ floor: Started; file: string }> {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-floors-'));
  const file = join(dir, `${kind}.db`);
  processes = new Processes(dir);
  const { message } = await processes.fork<Started>(kind, './baselines/memory-provider.ts', ['3', 'http://127.0.0.1:9/api', `sqlite:${file}`, kind]);
  return { floor: message, file };
}

describe('the refresh floor', () => {
  it("stores each rotation with the consumption of the token it replaces, and a reuse deletes the grant's tokens", async () => {
    const { floor, file } = await start('refresh');
    const rotated = await refresh(floor, floor.refreshTokens[0]!);
    expect(rotated.status).toBe(200);
    expect((await refresh(floor, rotated.body.refresh_token!)).status).toBe(200);
    const db = new DatabaseSync(file, { readOnly: true });
    const rows = () => db.prepare('select count(*) as n, count(consumed_at) as consumed from bench_floor_refresh_tokens').get();
    try {
      // Three minted, two rotated to, the two presented consumed.
      expect(rows()).toEqual({ n: 5, consumed: 2 });
      expect(await refresh(floor, floor.refreshTokens[0]!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // The reuse revoked the first chain's grant: its three tokens are gone, the other chains' two stay.
      expect(rows()).toEqual({ n: 2, consumed: 0 });
    } finally {
      db.close();
    }
  }, 30_000);
});

describe('the checked refresh floor', () => {
  it('rotates with a grant, a session and an enabled account, refuses a disabled account or an ended session, and stores one audit row per answer', async () => {
    const { floor, file } = await start('checked');
    const [first, second, third] = floor.refreshTokens as [string, string, string];

    const rotated = await refresh(floor, first);
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect((await refresh(floor, rotated.body.refresh_token!)).status).toBe(200);
    // A consumed token is refused (and ends its grant, as oidc-provider does).
    expect(await refresh(floor, first)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const db = new DatabaseSync(file);
    try {
      db.prepare('update bench_checked_accounts set disabled_at = 1 where id = ?').run('user-1');
      expect(await refresh(floor, second)).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } });
      db.prepare("delete from bench_checked_payloads where model = 'Session' and account_id = ?").run('user-2');
      expect(await refresh(floor, third)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      db.close();
    }

    // Stopping it writes the audit rows that wait.
    await processes!.stop();
    const after = new DatabaseSync(file, { readOnly: true });
    try {
      expect(after.prepare('select event, client_id as clientId, fields from bench_checked_audit order by id').all()).toEqual([
        { event: 'token.issued', clientId: 'app', fields: '{"client_id":"app","grant_type":"refresh_token"}' },
        { event: 'token.issued', clientId: 'app', fields: '{"client_id":"app","grant_type":"refresh_token"}' },
      ]);
    } finally {
      after.close();
    }
  }, 30_000);
});
