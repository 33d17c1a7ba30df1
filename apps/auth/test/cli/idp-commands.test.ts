/**
 * `authctl idp add|list|show|update|remove` on the registry service, on SQLite and PostgreSQL:
 * exact output and exit codes, the stored result, the audit lines, and the secrets (client secret
 * from stdin, a file or a flag; a private JWK from a file) never in stdout, stderr or any log
 * line (LOG_LEVEL=debug), in text or `--json`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { runCli } from '../../src/cli/run-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createIdentityProviderStore, type IdentityProviderStore } from '../../src/federation/identity-provider-store.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const GITHUB_SECRET = 'gh-secret-from-stdin-0123456789';
const FILE_SECRET = 'okta-secret-from-a-file-abcdef';
const FLAG_SECRET = 'entra-secret-given-as-a-flag';
const ROTATED_SECRET = 'rotated-upstream-secret-xyz';
const privateJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

describe.each(TEST_ENGINES)('authctl idp on %s', (engine) => {
  let dir: string;
  let target: TestDatabase;
  let env: Record<string, string | undefined>;
  const lines: string[] = [];
  const outputs: string[] = [];

  async function cli(argv: string[], stdin = '') {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, { stdin, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, clock: () => NOW, log: (line) => lines.push(...line.split('\n').filter(Boolean)) });
    outputs.push(stdout, stderr);
    return { code, stdout, stderr };
  }

  async function withStore<T>(fn: (store: IdentityProviderStore) => Promise<T>): Promise<T> {
    const config = loadConfig(env);
    const database = await openAuthDatabase(config.databaseUrl);
    try {
      return await fn(createIdentityProviderStore(database.db, createSecretBox(config.encryptionKey), () => NOW));
    } finally {
      await database.close();
    }
  }

  const audited = (event: string) =>
    lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === event)
      .map(({ level: _l, time: _t, pid: _p, hostname: _h, msg: _m, name: _n, ...rest }) => rest);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authctl-idp-'));
    target = await createTestDatabase(engine);
    env = { AUTH_DATABASE_URL: target.url, AUTH_DATA_DIR: dir, NODE_ENV: 'development', AUTH_ISSUER: 'https://id.example.com', LOG_LEVEL: 'debug' };
    writeFileSync(join(dir, 'okta-secret'), `${FILE_SECRET}\n`);
    writeFileSync(join(dir, 'rotated-secret'), ROTATED_SECRET);
    writeFileSync(join(dir, 'key.json'), JSON.stringify(privateJwk));
    writeFileSync(join(dir, 'not-json'), 'not json');
  });
  afterAll(async () => {
    // Whatever the commands printed or logged, no secret is in it.
    const everything = [...outputs, ...lines].join('\n');
    for (const secret of [GITHUB_SECRET, FILE_SECRET, FLAG_SECRET, ROTATED_SECRET, privateJwk.d!]) expect(everything).not.toContain(secret);
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('add --preset github reads the secret from stdin, seals it, and prints no secret', async () => {
    const run = await cli(['idp', 'add', 'github', '--preset', 'github', '--client-id', 'Iv1.0123', '--client-secret-stdin', '--map-group', 'acme/admins=admins'], `${GITHUB_SECRET}\n`);
    expect(run).toEqual({
      code: 0,
      stdout: 'created identity provider github (oauth2, preset github)\nRegister this redirect URI at the upstream provider: https://id.example.com/login/federated/github/callback\n',
      stderr: '',
    });
    expect(await withStore((s) => s.credentials('github'))).toEqual({ clientSecret: GITHUB_SECRET });
    expect(audited('identity_provider.created')).toEqual([{ audit: true, event: 'identity_provider.created', actor_kind: 'operator', actor: 'cli', provider: 'github', kind: 'oauth2', preset: 'github' }]);
  });

  it('add with the secret in a file and --json prints the admin API’s shape, secret-free', async () => {
    const run = await cli([
      'idp', 'add', 'acme', '--client-id', 'gatehouse', '--client-secret-file', join(dir, 'okta-secret'), '--issuer', 'https://acme.okta.example/oauth2/default',
      '--name', 'Acme SSO', '--claim', 'groups=groups', '--claim', 'username=email', '--provisioning', 'invited_only', '--mfa', 'trust_upstream',
      '--accept-amr', 'mfa', '--accept-amr', 'hwk', '--domain', 'acme.example', '--userinfo', '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      slug: 'acme',
      display_name: 'Acme SSO',
      kind: 'oidc',
      preset: 'oidc',
      enabled: true,
      issuer: 'https://acme.okta.example/oauth2/default',
      issuer_template: null,
      allowed_tenants: null,
      authorization_endpoint: null,
      token_endpoint: null,
      userinfo_endpoint: null,
      emails_endpoint: null,
      client_id: 'gatehouse',
      client_secret_set: true,
      token_endpoint_auth_method: 'client_secret_basic',
      private_key_set: false,
      scopes: ['openid', 'email', 'profile'],
      use_userinfo: true,
      claims: { subject: 'sub', username: 'email', email: 'email', email_verified: 'email_verified', name: 'name', groups: 'groups' },
      trust_email: false,
      group_mappings: [],
      provisioning: 'invited_only',
      mfa_policy: 'trust_upstream',
      mfa_accepted_amr: ['mfa', 'hwk'],
      mfa_accepted_acr: [],
      home_realm_domains: ['acme.example'],
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: null,
    });
    // The trailing newline of the file is not part of the secret.
    expect(await withStore((s) => s.credentials('acme'))).toEqual({ clientSecret: FILE_SECRET });
  });

  it('add --preset microsoft with a flag secret; list and show print settings, never the secret', async () => {
    expect((await cli(['idp', 'add', 'entra', '--preset', 'microsoft', '--tenant', 'organizations', '--client-id', 'app-id', '--client-secret', FLAG_SECRET, '--disabled'])).stdout.split('\n')[0]).toBe(
      'created identity provider entra (oidc, preset microsoft), disabled',
    );
    const list = await cli(['idp', 'list']);
    expect(list).toEqual({
      code: 0,
      stdout: [
        'SLUG    NAME       KIND    PRESET     ENABLED  PROVISIONING  DOMAINS',
        'acme    Acme SSO   oidc    oidc       yes      invited_only  acme.example',
        'entra   Microsoft  oidc    microsoft  no       just_in_time',
        'github  GitHub     oauth2  github     yes      just_in_time',
        '',
      ].join('\n'),
      stderr: '',
    });
    const listed = JSON.parse((await cli(['idp', 'list', '--json'])).stdout) as { items: { slug: string; client_secret_set: boolean }[]; next: null };
    expect(listed.items.map((p) => [p.slug, p.client_secret_set])).toEqual([
      ['acme', true],
      ['entra', true],
      ['github', true],
    ]);
    expect(listed.next).toBeNull();
    const show = await cli(['idp', 'show', 'entra']);
    expect(show.stdout.split('\n')).toEqual([
      'slug: entra',
      'display_name: Microsoft',
      'kind: oidc',
      'preset: microsoft',
      'enabled: no',
      'issuer: https://login.microsoftonline.com/organizations/v2.0',
      'issuer_template: https://login.microsoftonline.com/{tenantid}/v2.0',
      'client_id: app-id',
      'client_secret: set (sealed, not shown)',
      'token_endpoint_auth_method: client_secret_basic',
      'scopes: openid email profile',
      'use_userinfo: no',
      'claims: subject=sub username=preferred_username email=email email_verified=email_verified name=name groups=groups',
      'trust_email: no',
      'group_mappings: -',
      'provisioning: just_in_time',
      'mfa_policy: trust_upstream',
      'mfa_accepted_amr: mfa',
      'mfa_accepted_acr: -',
      'home_realm_domains: -',
      'created_at: 2026-11-21T12:00:00.000Z',
      '',
    ]);
    expect(JSON.parse((await cli(['idp', 'show', 'github', '--json'])).stdout)).toMatchObject({
      slug: 'github',
      authorization_endpoint: 'https://github.com/login/oauth/authorize',
      token_endpoint: 'https://github.com/login/oauth/access_token',
      userinfo_endpoint: 'https://api.github.com/user',
      emails_endpoint: 'https://api.github.com/user/emails',
      group_mappings: [{ upstream: 'acme/admins', group: 'admins' }],
      client_secret_set: true,
    });
  });

  it('update replaces the secret from a file, changes settings, removes with --no-..., and audits field names only', async () => {
    const run = await cli(['idp', 'update', 'acme', '--client-secret-file', join(dir, 'rotated-secret'), '--disable', '--no-groups-claim', '--clear-domains', '--map-group', 'Everyone=staff', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ enabled: false, claims: { groups: null }, home_realm_domains: [], group_mappings: [{ upstream: 'Everyone', group: 'staff' }], client_secret_set: true, updated_at: '2026-11-21T12:00:00.000Z' });
    expect(await withStore((s) => s.credentials('acme'))).toEqual({ clientSecret: ROTATED_SECRET });
    expect(audited('identity_provider.updated')).toEqual([
      { audit: true, event: 'identity_provider.updated', actor_kind: 'operator', actor: 'cli', provider: 'acme', fields: 'enabled,claims,group_mappings,home_realm_domains,client_secret' },
    ]);
  });

  it('private_key_jwt reads the private JWK from a file, drops the secret, and never prints the key', async () => {
    const run = await cli(['idp', 'update', 'entra', '--auth-method', 'private_key_jwt', '--private-key-file', join(dir, 'key.json')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\nclient_secret: none\ntoken_endpoint_auth_method: private_key_jwt\nprivate_key: set (sealed, not shown)\n');
    expect(await withStore((s) => s.credentials('entra'))).toEqual({ privateJwk });
  });

  it.each<[string, string[], string]>([
    ['no client id', ['idp', 'add', 'x', '--issuer', 'https://x.example'], 'authctl: error: idp add: missing required option --client-id (the client id the upstream provider issued to Gatehouse) (run "authctl help" for usage)\n'],
    ['two secrets', ['idp', 'add', 'x', '--client-id', 'a', '--client-secret', 's', '--client-secret-file', '/nonexistent'], 'authctl: error: idp add: give the client secret once: --client-secret-stdin, --client-secret-file or --client-secret (run "authctl help" for usage)\n'],
    ['an unreadable secret file', ['idp', 'add', 'x', '--client-id', 'a', '--client-secret-file', '/nonexistent/secret'], 'authctl: error: idp add: --client-secret-file: cannot read the file "/nonexistent/secret" (run "authctl help" for usage)\n'],
    ['an empty stdin', ['idp', 'add', 'x', '--client-id', 'a', '--client-secret-stdin'], 'authctl: error: idp add: --client-secret-stdin: standard input is empty (run "authctl help" for usage)\n'],
    ['a bad --map-group', ['idp', 'update', 'acme', '--map-group', 'nogroup'], 'authctl: error: idp update: --map-group must be <upstream group>=<Gatehouse group> (e.g. --map-group "Acme Admins=admins") (run "authctl help" for usage)\n'],
    ['a bad --claim', ['idp', 'update', 'acme', '--claim', 'color=blue'], 'authctl: error: idp update: --claim must be <field>=<claim>, field one of subject, username, email, email_verified, name, groups (e.g. --claim username=preferred_username) (run "authctl help" for usage)\n'],
    ['an unknown preset', ['idp', 'add', 'x', '--client-id', 'a', '--preset', 'okta'], 'authctl: error: idp add: --preset must be one of google, microsoft, github, oidc, oauth2 (run "authctl help" for usage)\n'],
    ['--enable with --disable', ['idp', 'update', 'acme', '--enable', '--disable'], 'authctl: error: idp update: --enable and --disable exclude each other (run "authctl help" for usage)\n'],
    ['nothing to update', ['idp', 'update', 'acme'], 'authctl: error: idp update: nothing to update (give a setting, --enable / --disable, or a new client secret or private key) (run "authctl help" for usage)\n'],
    ['a key file that is not JSON', ['idp', 'update', 'entra', '--private-key-file', '/dev/null'], 'authctl: error: idp update: --private-key-file: the file "/dev/null" is not JSON (expected a private JWK) (run "authctl help" for usage)\n'],
  ])('%s is a usage error (exit 2)', async (_name, argv, stderr) => {
    expect(await cli(argv)).toEqual({ code: 2, stdout: '', stderr });
  });

  it.each<[string, string[], string]>([
    ['a plain-http issuer', ['idp', 'add', 'x', '--client-id', 'a', '--client-secret', 's', '--issuer', 'http://x.example'], 'authctl: error: issuer must use https (http only on localhost or 127.0.0.1)\n'],
    ['a taken slug', ['idp', 'add', 'acme', '--client-id', 'a', '--client-secret', 's', '--issuer', 'https://x.example'], 'authctl: error: identity provider "acme" already exists\n'],
    ['a taken domain', ['idp', 'add', 'y', '--client-id', 'a', '--client-secret', 's', '--issuer', 'https://x.example', '--domain', 'acme.example', '--domain', 'github.example'], ''],
    ['an unknown provider', ['idp', 'show', 'nope'], 'authctl: error: unknown identity provider "nope"\n'],
    ['removing an unknown provider', ['idp', 'remove', 'nope'], 'authctl: error: unknown identity provider "nope"\n'],
  ])('%s is refused by the service (exit 1)', async (name, argv, stderr) => {
    const run = await cli(argv);
    if (name === 'a taken domain') {
      // acme gave its domain up above: the domain is free, so this one succeeds; a second claim is refused.
      expect(run.code).toBe(0);
      expect(await cli(['idp', 'update', 'github', '--domain', 'github.example'])).toEqual({ code: 1, stdout: '', stderr: 'authctl: error: the domain github.example already belongs to the identity provider "y"\n' });
      return;
    }
    expect(run).toEqual({ code: 1, stdout: '', stderr });
  });

  it('remove deletes the provider and audits it', async () => {
    expect(await cli(['idp', 'remove', 'y'])).toEqual({ code: 0, stdout: 'removed identity provider y\n', stderr: '' });
    expect(await withStore((s) => s.find('y'))).toBeUndefined();
    expect(audited('identity_provider.removed')).toEqual([{ audit: true, event: 'identity_provider.removed', actor_kind: 'operator', actor: 'cli', provider: 'y', links: 0 }]);
  });
});
