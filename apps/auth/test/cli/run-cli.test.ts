import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/accounts/password.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createClientStore } from '../../src/clients/client-store.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createKeyStore } from '../../src/keys/key-store.ts';
import { generateSigningKey, loadSigningJwks } from '../../src/keys/signing-keys.ts';
import { createTotp } from '../../src/mfa/totp.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
let dir: string;
let env: Record<string, string | undefined>;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(argv: string[], stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW });
  return { code, stdout, stderr };
}

/** Opens the database the way the server does, to check what the CLI wrote. */
async function withServerView<T>(fn: (stores: {
  accounts: ReturnType<typeof createAccountStore>;
  clients: ReturnType<typeof createClientStore>;
  keys: ReturnType<typeof createKeyStore>;
  db: Awaited<ReturnType<typeof openAuthDatabase>>['db'];
}) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  const database = await openAuthDatabase(config.databaseUrl);
  const box = createSecretBox(config.encryptionKey);
  try {
    return await fn({
      accounts: createAccountStore(database.db, box),
      clients: createClientStore(database.db, box),
      keys: createKeyStore(database.db, box),
      db: database.db,
    });
  } finally {
    await database.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authctl-test-'));
  env = { AUTH_DATABASE_URL: `sqlite:${join(dir, 'auth.db')}`, AUTH_DATA_DIR: dir, NODE_ENV: 'development' };
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('authctl help and usage errors', () => {
  it('prints usage for help', async () => {
    const run = await cli(['help']);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('usage: authctl <command> [options]\n')).toBe(true);
    expect(run.stdout).toContain('  user add <username> --email <e> --name <n> [--groups a,b] --password-stdin [--json]\n');
    expect(run.stdout).toContain('  keys rotate [--json]');
    expect(run.stderr).toBe('');
  });

  it('prints usage on stderr with exit 2 when no command is given', async () => {
    const run = await cli([]);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr.startsWith('usage: authctl')).toBe(true);
  });

  it.each([
    [['frob'], 'unknown command "frob"'],
    [['user'], 'user: missing subcommand (add, list, update, remove, disable, enable, passwd, unlock, sessions, signout-all, totp, reset-mfa, reset-link)'],
    [['user', 'frob'], 'unknown command "user frob"'],
    [['client', 'add', 'x'], 'client add: missing required option --redirect-uri (or use --grant client_credentials)'],
    [['client', 'add', 'x', '--redirect-uri'], 'client add: option --redirect-uri needs a value'],
    [['client', 'add', 'x', '--redirect-uri', 'https://a.example/cb', '--auth-method', 'tls_client_auth'], 'client add: --auth-method must be one of client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt'],
    [['client', 'add', 'x', '--redirect-uri', 'https://a.example/cb', '--auth-method', 'private_key_jwt'], 'client add: --auth-method private_key_jwt needs --jwks <file> or --jwks-uri <url>'],
    [['user', 'add', '--email', 'a@example.com'], 'user add: missing <username>'],
    [['user', 'add', 'a', 'b'], 'user add: unexpected argument "b"'],
    [['user', 'add', 'a', '--name', 'A', '--password-stdin'], 'user add: missing required option --email'],
    [['user', 'add', 'a', '--email', 'a@example.com', '--name', 'A'], 'user add: missing required option --password-stdin (the password is read from standard input)'],
    [['user', 'add', 'a', '--email', 'a@example.com', '--name', 'A', '--password', 'hunter22'], 'user add: unknown option --password'],
    [['user', 'list', '--json=yes'], 'user list: option --json takes no value'],
    [['keys', 'list', 'extra'], 'keys list: unexpected argument "extra"'],
  ])('%j → exit 2 with one line', async (argv, message) => {
    const run = await cli(argv, 'password123\n');
    expect(run).toEqual({ code: 2, stdout: '', stderr: `authctl: error: ${message} (run "authctl help" for usage)\n` });
  });

  it('reports a bad configuration as one line', async () => {
    const saved = env;
    env = { ...env, AUTH_DATABASE_URL: 'mysql://root:hunter2@db/auth' };
    try {
      expect(await cli(['user', 'list'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'authctl: error: invalid setting AUTH_DATABASE_URL: unsupported database URL "mysql://root:***@db/auth": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db\n',
      });
    } finally {
      env = saved;
    }
  });

  it('reports an unreachable database as one line, without a stack trace', async () => {
    const saved = env;
    env = { ...env, AUTH_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable' };
    try {
      const run = await cli(['user', 'list']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^authctl: error: [^\n]*ECONNREFUSED[^\n]*\n$/);
      expect(run.stderr).not.toContain('    at ');
    } finally {
      env = saved;
    }
  });
});

describe('authctl user', () => {
  it('adds a user with the password from stdin, hashed', async () => {
    const run = await cli(['user', 'add', 'Alice', '--email', 'alice@example.com', '--name', 'Alice Example', '--groups', 'admins, users', '--password-stdin', '--json'], 'correct horse\n');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const body = JSON.parse(run.stdout) as Record<string, unknown>;
    // The admin API's user (admin/json/user-json.ts), as POST /admin/v1/users answers.
    expect(body).toEqual({
      id: expect.any(String),
      username: 'alice',
      email: 'alice@example.com',
      name: 'Alice Example',
      groups: ['admins', 'users'],
      disabled: false,
      disabled_at: null,
      locked: false,
      locked_until: null,
      created_at: '2026-11-21T12:00:00.000Z',
      second_factors: { totp: false, devices: 0, passkeys: 0, recovery_codes_left: 0 },
    });
    expect(run.stdout).not.toContain('correct horse');
    await withServerView(async ({ accounts }) => {
      const alice = await accounts.findByUsername('alice');
      expect(alice).toMatchObject({ id: body.id, createdAt: NOW, totpEnrolled: false });
      expect(await verifyPassword(alice!.passwordHash, 'correct horse')).toBe(true);
    });
  });

  it('accepts 128 characters of any printable Unicode, lower-case only, and hashes them exactly as typed', async () => {
    const password = `  ä 🦊 ${'z'.repeat(122)}`;
    expect([...password]).toHaveLength(128);
    const run = await cli(['user', 'add', 'erin', '--email', 'erin@example.com', '--name', 'Erin', '--password-stdin'], `${password}\n`);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    await withServerView(async ({ accounts }) => {
      const erin = await accounts.findByUsername('erin');
      expect(await verifyPassword(erin!.passwordHash, password)).toBe(true);
      expect(await verifyPassword(erin!.passwordHash, password.trim())).toBe(false);
      expect(await verifyPassword(erin!.passwordHash, password.slice(0, 72))).toBe(false);
    });
    expect((await cli(['user', 'remove', 'erin'])).code).toBe(0);
  });

  it('prints a plain confirmation without --json', async () => {
    const run = await cli(['user', 'add', 'bob', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'], 'password-of-bob');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^created user bob \(id [0-9a-f-]{36}\)\n$/);
  });

  it.each([
    ['', 'password is empty (pipe it on standard input)'],
    ['\n', 'password is empty (pipe it on standard input)'],
    ['eleven-char\n', 'password must be at least 12 characters'],
    ['short    pass\n', 'password must be at least 12 characters'],
    [`${'x'.repeat(129)}\n`, 'password must be at most 128 characters'],
  ])('refuses the password %j', async (stdin, message) => {
    const run = await cli(['user', 'add', 'carol', '--email', 'carol@example.com', '--name', 'Carol', '--password-stdin'], stdin);
    expect(run).toEqual({ code: 1, stdout: '', stderr: `authctl: error: ${message}\n` });
  });

  it('refuses a duplicate or invalid username with one line', async () => {
    expect(await cli(['user', 'add', 'ALICE', '--email', 'a2@example.com', '--name', 'A', '--password-stdin'], 'gatehouse-test-pw')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: username "alice" is already taken\n',
    });
    expect(await cli(['user', 'add', 'a b', '--email', 'a2@example.com', '--name', 'A', '--password-stdin'], 'gatehouse-test-pw')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"\n',
    });
  });

  it('lists users as a table and as JSON', async () => {
    const table = await cli(['user', 'list']);
    expect(table).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'USERNAME  EMAIL              NAME           GROUPS        TOTP  DISABLED  LOCKED',
        'alice     alice@example.com  Alice Example  admins,users  no    no        no',
        'bob       bob@example.com    Bob                          no    no        no',
        '',
      ].join('\n'),
    });
    const json = JSON.parse((await cli(['user', 'list', '--json'])).stdout) as { items: Record<string, unknown>[]; next: null };
    expect(json.next).toBeNull();
    expect(json.items.map((u) => [u.username, u.groups, u.disabled, u.created_at])).toEqual([
      ['alice', ['admins', 'users'], false, '2026-11-21T12:00:00.000Z'],
      ['bob', [], false, '2026-11-21T12:00:00.000Z'],
    ]);
    expect(JSON.stringify(json)).not.toContain('argon2');
  });

  it('enrols TOTP and prints a URI whose secret verifies', async () => {
    const run = await cli(['user', 'totp', 'alice', '--json']);
    expect(run.code).toBe(0);
    const { otpauth_uri: uri } = JSON.parse(run.stdout) as { otpauth_uri: string };
    expect(uri).toMatch(/^otpauth:\/\/totp\/Gatehouse%20\(localhost%203000\):alice\?secret=[A-Z2-7]{32}&issuer=Gatehouse%20\(localhost%203000\)$/);
    const secret = new URL(uri).searchParams.get('secret')!;
    await withServerView(async ({ accounts }) => {
      const alice = (await accounts.findByUsername('alice'))!;
      expect(alice.totpEnrolled).toBe(true);
      expect(await accounts.getTotpSecret(alice.id)).toBe(secret);
    });
    const totp = createTotp();
    expect(await totp.verify(secret, await totp.generate(secret, NOW), NOW)).toBe(Math.floor(NOW / 30_000));
  });

  it('re-enrols TOTP with a new secret and shows a terminal QR code', async () => {
    const before = await withServerView(async ({ accounts }) => accounts.getTotpSecret((await accounts.findByUsername('alice'))!.id));
    const run = await cli(['user', 'totp', 'alice']);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('TOTP re-enrolled for alice; any previous authenticator entry stops working.');
    expect(run.stdout).toMatch(/[▀▄█]/);
    const uriLine = lines.find((l) => l.startsWith('otpauth://'))!;
    const after = new URL(uriLine).searchParams.get('secret');
    expect(after).toMatch(/^[A-Z2-7]{32}$/);
    expect(after).not.toBe(before);
  });

  it('refuses TOTP enrolment and removal of an unknown user', async () => {
    expect(await cli(['user', 'totp', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
    expect(await cli(['user', 'remove', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
  });

  it('disables and enables a user: disabling publishes the end of their tokens', async () => {
    const id = await withServerView(async ({ accounts }) => (await accounts.findByUsername('bob'))!.id);
    expect(await cli(['user', 'disable', 'Bob'])).toEqual({ code: 0, stdout: 'disabled user bob: sign-in refused; 0 sessions and 0 grants ended, access tokens revoked\n', stderr: '' });
    await withServerView(async ({ accounts, db }) => {
      expect((await accounts.findByUsername('bob'))!.disabledAt).toBe(NOW);
      const rows = await db.selectFrom('token_revocations').select(['type', 'issued_before']).where('subject', '=', id).execute();
      expect(rows.map((r) => ({ type: r.type, issued_before: Number(r.issued_before) }))).toEqual([{ type: 'subject', issued_before: NOW + 1 }]);
      await db.deleteFrom('token_revocations').execute();
    });
    expect(JSON.parse((await cli(['user', 'list', '--json'])).stdout).items.find((u: { username: string }) => u.username === 'bob').disabled).toBe(true);
    expect(await cli(['user', 'enable', 'bob'])).toEqual({ code: 0, stdout: 'enabled user bob: they may sign in again (no earlier session comes back)\n', stderr: '' });
    await withServerView(async ({ accounts }) => expect((await accounts.findByUsername('bob'))!.disabledAt).toBeNull());
    expect(await cli(['user', 'disable', 'nobody'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown user "nobody"\n' });
  });

  it('removes a user, and publishes the end of their tokens on the revocation feed', async () => {
    const id = await withServerView(async ({ accounts }) => (await accounts.findByUsername('bob'))!.id);
    expect(await cli(['user', 'remove', 'BOB'])).toEqual({ code: 0, stdout: 'removed user bob: 0 sessions and 0 grants ended, access tokens revoked\n', stderr: '' });
    await withServerView(async ({ accounts, db }) => {
      expect(await accounts.findByUsername('bob')).toBeUndefined();
      const rows = await db.selectFrom('token_revocations').select(['type', 'subject', 'issued_before', 'expires_at']).where('subject', '=', id).execute();
      expect(rows.map((r) => ({ ...r, issued_before: Number(r.issued_before), expires_at: Number(r.expires_at) }))).toEqual([
        { type: 'subject', subject: id, issued_before: NOW + 1, expires_at: NOW + 3_601_000 },
      ]);
    });
  });
});

describe('authctl client', () => {
  it('adds a confidential client and prints its secret once', async () => {
    const run = await cli([
      'client', 'add', 'web',
      '--redirect-uri', 'https://web.example/callback',
      '--redirect-uri', 'http://localhost:4000/callback',
      '--post-logout-redirect-uri', 'https://web.example/signed-out',
      '--auth-method', 'client_secret_post',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { client_id: string; client_secret: string };
    expect(body.client_id).toBe('web');
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await withServerView(async ({ clients }) => {
      expect(await clients.find('web')).toEqual({
        clientId: 'web',
        clientSecret: body.client_secret,
        redirectUris: ['https://web.example/callback', 'http://localhost:4000/callback'],
        postLogoutRedirectUris: ['https://web.example/signed-out'],
        public: false,
        tokenEndpointAuthMethod: 'client_secret_post',
        grantTypes: ['authorization_code', 'refresh_token'],
        name: 'web',
        createdAt: NOW,
      });
    });
  });

  it('adds public and client_credentials clients', async () => {
    expect(await cli(['client', 'add', 'spa', '--redirect-uri', 'https://spa.example/cb', '--public'])).toEqual({
      code: 0,
      stdout: 'created public client spa\n',
      stderr: '',
    });
    const run = await cli(['client', 'add', 'introspector', '--grant', 'client_credentials']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^created confidential client introspector\nclient_secret: [A-Za-z0-9_-]{43}\nStore the secret now: it is not shown again\.\n$/);
  });

  it('refuses a bad redirect URI and a duplicate id with one line', async () => {
    expect(await cli(['client', 'add', 'evil', '--redirect-uri', 'http://evil.example/cb'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: redirect URI "http://evil.example/cb" must use https; http is allowed only for localhost and 127.0.0.1\n',
    });
    expect(await cli(['client', 'add', 'web', '--redirect-uri', 'https://web.example/cb'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: client "web" already exists\n',
    });
  });

  it('lists clients without their secrets', async () => {
    const secrets = await withServerView(async ({ clients }) => (await clients.list()).map((c) => c.clientSecret).filter(Boolean));
    expect(secrets).toHaveLength(2);
    const table = await cli(['client', 'list']);
    expect(table.stdout).toBe(
      [
        'CLIENT_ID     TYPE          AUTH                 GRANTS                            REDIRECT_URIS',
        'introspector  confidential  client_secret_basic  client_credentials',
        'spa           public        none                 authorization_code,refresh_token  https://spa.example/cb',
        'web           confidential  client_secret_post   authorization_code,refresh_token  https://web.example/callback http://localhost:4000/callback',
        '',
      ].join('\n'),
    );
    const json = await cli(['client', 'list', '--json']);
    expect((JSON.parse(json.stdout) as { items: { client_id: string }[] }).items.map((c) => c.client_id)).toEqual(['introspector', 'spa', 'web']);
    for (const secret of secrets) {
      expect(table.stdout).not.toContain(secret);
      expect(json.stdout).not.toContain(secret);
    }
  });

  it('removes a client', async () => {
    expect(await cli(['client', 'remove', 'spa'])).toEqual({ code: 0, stdout: 'removed client spa\n', stderr: '' });
    expect(await cli(['client', 'remove', 'spa'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: unknown client "spa"\n' });
  });

  it('--id-token-field JWT_token makes the token response repeat the ID token; a taken name is refused', async () => {
    const run = await cli(['client', 'add', 'seed-variant', '--redirect-uri', 'https://seed.example/cb', '--id-token-field', 'JWT_token', '--json']);
    expect(run.code).toBe(0);
    await withServerView(async ({ clients }) => {
      expect((await clients.find('seed-variant'))!.idTokenField).toBe('JWT_token');
      expect((await clients.find('web'))!.idTokenField).toBeUndefined();
    });
    const listed = (JSON.parse((await cli(['client', 'list', '--json'])).stdout) as { items: { client_id: string; id_token_field: string | null }[] }).items;
    expect(listed.find((c) => c.client_id === 'seed-variant')!.id_token_field).toBe('JWT_token');
    expect(await cli(['client', 'add', 'bad-field', '--redirect-uri', 'https://seed.example/cb', '--id-token-field', 'access_token'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'authctl: error: ID token field "access_token" is already a token-response member\n',
    });
    expect((await cli(['client', 'remove', 'seed-variant'])).code).toBe(0);
  });
});

describe('authctl keys', () => {
  // Defaults: a retired key stays max(access 3600 s, ID token 3600 s) + 5 s reload lag + 300 s clock tolerance.
  const RETIRED_UNTIL = '2026-11-21T13:05:05.000Z';
  let first: string;
  let second: string;

  it('rotates: the first rotation creates a key, the next retires it until its tokens expire', async () => {
    const created = JSON.parse((await cli(['keys', 'rotate', '--json'])).stdout) as { kid: string; retired: string[] };
    expect(created).toEqual({ kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), retired: [], retired_expire_at: null, discarded: [] });
    first = created.kid;
    const run = await cli(['keys', 'rotate', '--json']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { kid: string; retired: string[]; retired_expire_at: string };
    expect(body).toEqual({ kid: expect.any(String), retired: [first], retired_expire_at: RETIRED_UNTIL, discarded: [] });
    second = body.kid;
    await withServerView(async ({ keys }) => {
      const jwks = await loadSigningJwks(keys, NOW);
      expect(jwks.keys.map((k) => k.kid)).toEqual([second, first]);
      expect(jwks.signingKid).toBe(second);
    });
  });

  it('lists keys with their state and activation time, and no key material', async () => {
    const run = await cli(['keys', 'list', '--json']);
    const listed = (JSON.parse(run.stdout) as { items: Record<string, unknown>[] }).items;
    expect(listed.map((k) => [k.kid, k.state, k.created_at, k.activates_at, k.retired_at, k.expires_at])).toEqual([
      [second, 'active', '2026-11-21T12:00:00.000Z', '2026-11-21T12:00:00.000Z', null, null],
      [first, 'retired', '2026-11-21T12:00:00.000Z', '2026-11-21T12:00:00.000Z', '2026-11-21T12:00:00.000Z', RETIRED_UNTIL],
    ]);
    expect(run.stdout).not.toMatch(/"(d|p|q|dp|dq|qi|n)"/);
    const table = await cli(['keys', 'list']);
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      `KID${' '.repeat(42)}ALG    STATUS   CREATED                   ACTIVATES                 EXPIRES`,
      `${second}  RS256  active   2026-11-21T12:00:00.000Z  2026-11-21T12:00:00.000Z  -`,
      `${first}  RS256  retired  2026-11-21T12:00:00.000Z  2026-11-21T12:00:00.000Z  ${RETIRED_UNTIL}`,
    ]);
  });

  it('lists a scheduled key as pending, and rotate drops it (it never signed)', async () => {
    // A server scheduled the next key 30 minutes ago; it activates in an hour.
    const pending = await generateSigningKey(NOW - 1_800_000, { activatesAt: NOW + 3_600_000, replacesKid: second });
    await withServerView(async ({ keys }) => {
      expect(await keys.insert(pending)).toBe(true);
    });
    const listed = (JSON.parse((await cli(['keys', 'list', '--json'])).stdout) as { items: Record<string, unknown>[] }).items;
    expect(listed.map((k) => [k.kid, k.state, k.activates_at])).toEqual([
      [second, 'active', '2026-11-21T12:00:00.000Z'],
      [pending.kid, 'pending', '2026-11-21T13:00:00.000Z'],
      [first, 'retired', '2026-11-21T12:00:00.000Z'],
    ]);

    const run = await cli(['keys', 'rotate']);
    expect(run.code).toBe(0);
    const third = /^new active signing key: (\S+)\n/.exec(run.stdout)?.[1];
    expect(run.stdout).toBe(
      `new active signing key: ${third}\nretired: ${second} (published until ${RETIRED_UNTIL})\ndiscarded pending key: ${pending.kid} (it never signed)\n`,
    );
    const after = (JSON.parse((await cli(['keys', 'list', '--json'])).stdout) as { items: Record<string, unknown>[] }).items;
    // Both retired keys were created at the same pinned instant: their relative order is the kid's.
    expect(after.map((k) => [k.kid, k.state])[0]).toEqual([third, 'active']);
    expect(after.slice(1).map((k) => [k.kid, k.state]).sort()).toEqual([[first, 'retired'], [second, 'retired']].sort());
  });
});
