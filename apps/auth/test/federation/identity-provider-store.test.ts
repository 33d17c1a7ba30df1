/**
 * The identity-provider store (federation/identity-provider-store.ts) on SQLite and PostgreSQL:
 * every setting round-trips, secrets are sealed at rest (the row holds SecretBox output, never the
 * plaintext) and opened only by credentials(), a slug is taken once, update() replaces settings
 * and keeps or removes secrets as told, list pages by slug, remove says whether it removed.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createIdentityProviderStore } from '../../src/federation/identity-provider-store.ts';
import type { IdentityProviderSettings, PrivateJwk } from '../../src/federation/identity-provider.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 9));

function settings(slug: string, over: Partial<IdentityProviderSettings> = {}): IdentityProviderSettings {
  return {
    slug,
    displayName: `Acme ${slug}`,
    kind: 'oidc',
    preset: 'microsoft',
    enabled: true,
    issuer: 'https://login.microsoftonline.com/organizations/v2.0',
    issuerTemplate: 'https://login.microsoftonline.com/{tenantid}/v2.0',
    allowedTenants: ['0b3f5a3e-1111-4222-8333-944445555666'],
    clientId: 'gatehouse-app',
    tokenEndpointAuthMethod: 'client_secret_basic',
    scopes: ['openid', 'email', 'profile'],
    useUserinfo: true,
    claims: { subject: 'sub', username: 'preferred_username', email: 'email', emailVerified: 'email_verified', name: 'name', groups: 'groups' },
    trustEmail: false,
    groupMappings: [{ upstream: 'f00d-admins', group: 'admins' }],
    provisioning: 'invited_only',
    mfaPolicy: 'trust_upstream',
    mfaAcceptedAmr: ['mfa'],
    mfaAcceptedAcr: ['urn:acme:loa:2'],
    homeRealmDomains: ['acme.example'],
    ...over,
  };
}

const privateJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as PrivateJwk;

describe.each(TEST_ENGINES)('identity-provider store on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('round-trips every setting, seals the secret at rest and opens it only through credentials()', async () => {
    const clock = { now: 1_750_000_000_000 };
    const store = createIdentityProviderStore(database.db, box, () => clock.now);
    const created = await store.create(settings('acme'), { clientSecret: 'upstream-secret-value' });
    const expected = { ...settings('acme'), clientSecretSet: true, privateKeySet: false, createdAt: clock.now };
    expect(created).toEqual(expected);
    expect(await store.find('acme')).toEqual(expected);
    expect(JSON.stringify(created)).not.toContain('upstream-secret-value');

    const row = await database.db.selectFrom('identity_providers').selectAll().where('slug', '=', 'acme').executeTakeFirstOrThrow();
    expect(row.client_secret_sealed).toMatch(new RegExp(`^v2\\.${box.keyId}\\.`));
    expect(JSON.stringify(row)).not.toContain('upstream-secret-value');
    expect(row.private_jwk_sealed).toBeNull();
    expect(await store.credentials('acme')).toEqual({ clientSecret: 'upstream-secret-value' });
    expect(await store.credentials('nobody')).toBeUndefined();
    expect(await store.find('nobody')).toBeUndefined();
  });

  it('an oauth2 provider keeps its endpoints and leaves the oidc-only settings absent', async () => {
    const store = createIdentityProviderStore(database.db, box, () => 1);
    const github = settings('github', {
      kind: 'oauth2',
      preset: 'github',
      issuer: undefined,
      issuerTemplate: undefined,
      allowedTenants: undefined,
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      userinfoEndpoint: 'https://api.github.com/user',
      emailsEndpoint: 'https://api.github.com/user/emails',
      mfaPolicy: 'always_local',
      mfaAcceptedAmr: [],
      mfaAcceptedAcr: [],
      groupMappings: [],
      homeRealmDomains: [],
    });
    for (const key of ['issuer', 'issuerTemplate', 'allowedTenants'] as const) delete github[key];
    const created = await store.create(github, { clientSecret: 'gh-secret' });
    expect(created).toEqual({ ...github, clientSecretSet: true, privateKeySet: false, createdAt: 1 });
    expect(Object.keys(created)).not.toContain('issuer');
  });

  it('refuses a slug that is taken with duplicate_provider, leaving the first untouched', async () => {
    const store = createIdentityProviderStore(database.db, box, () => 5);
    await store.create(settings('dup'), { clientSecret: 'first' });
    await expect(store.create(settings('dup', { displayName: 'Other' }), { clientSecret: 'second' })).rejects.toMatchObject({ name: 'IdentityProviderError', code: 'duplicate_provider', field: 'slug' });
    expect((await store.find('dup'))?.displayName).toBe('Acme dup');
    expect(await store.credentials('dup')).toEqual({ clientSecret: 'first' });
  });

  it('update() replaces the settings, keeps a secret given as undefined and removes one given as null', async () => {
    const clock = { now: 2_000 };
    const store = createIdentityProviderStore(database.db, box, () => clock.now);
    await store.create(settings('upd'), { clientSecret: 'keep-me' });
    clock.now = 3_000;
    const changed = settings('upd', { displayName: 'Acme SSO', enabled: false, scopes: ['openid'], groupMappings: [] });
    expect(await store.update('upd', changed, {})).toEqual({ ...changed, clientSecretSet: true, privateKeySet: false, createdAt: 2_000, updatedAt: 3_000 });
    expect(await store.credentials('upd')).toEqual({ clientSecret: 'keep-me' });

    clock.now = 4_000;
    const jwt = { ...changed, tokenEndpointAuthMethod: 'private_key_jwt' as const };
    expect(await store.update('upd', jwt, { clientSecret: null, privateJwk })).toMatchObject({ clientSecretSet: false, privateKeySet: true, updatedAt: 4_000 });
    expect(await store.credentials('upd')).toEqual({ privateJwk });
    const row = await database.db.selectFrom('identity_providers').select(['private_jwk_sealed', 'client_secret_sealed']).where('slug', '=', 'upd').executeTakeFirstOrThrow();
    expect(row.client_secret_sealed).toBeNull();
    expect(row.private_jwk_sealed).not.toContain(privateJwk.d);

    await expect(store.update('missing', changed, {})).rejects.toMatchObject({ code: 'unknown_provider' });
  });

  it('lists by slug, pages with after/limit, and remove() says whether it removed', async () => {
    const store = createIdentityProviderStore(database.db, box, () => 7);
    for (const slug of ['zz-c', 'zz-a', 'zz-b']) await store.create(settings(slug), { clientSecret: 's' });
    const mine = async (page: { after?: string; limit?: number } = {}) => (await store.list(page)).map((p) => p.slug).filter((slug) => slug.startsWith('zz-'));
    expect(await mine()).toEqual(['zz-a', 'zz-b', 'zz-c']);
    expect(await mine({ after: 'zz', limit: 2 })).toEqual(['zz-a', 'zz-b']);
    expect(await mine({ after: 'zz-b', limit: 2 })).toEqual(['zz-c']);
    expect(await store.remove('zz-b')).toBe(true);
    expect(await store.remove('zz-b')).toBe(false);
    expect(await mine()).toEqual(['zz-a', 'zz-c']);
  });
});
