/**
 * The identity-provider registry (federation/identity-provider-service.ts) on SQLite and
 * PostgreSQL: presets, the rules of identity-provider-rules.ts each refused with its code and
 * field, secrets following the auth method, home-realm domains owned once, audit events that name
 * the actor and never a secret, the login page's reads (enabled, forEmailDomain) and credentials().
 */
import { generateKeyPairSync } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { createAuditor } from '../../src/audit/auditor.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { IdentityProviderError } from '../../src/federation/identity-provider.ts';
import { createIdentityProviderService, type IdentityProviderService, type NewIdentityProvider } from '../../src/federation/identity-provider-service.ts';
import { createIdentityProviderStore } from '../../src/federation/identity-provider-store.ts';
import { createAccountLinkStore } from '../../src/federation/account-link-store.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const NOW = 1_790_000_000_000;
const box = createSecretBox(Buffer.alloc(32, 3));
const ecJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

async function refusal(promise: Promise<unknown>): Promise<{ code: string; field: string | undefined; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IdentityProviderError);
  const e = error as IdentityProviderError;
  return { code: e.code, field: e.field, message: e.message };
}

describe.each(TEST_ENGINES)('identity-provider service on %s', (engine) => {
  const database = useAuthDatabase(engine);
  let n = 0;
  const events: { event: string; fields: Record<string, unknown> }[] = [];
  const service = (): IdentityProviderService =>
    createIdentityProviderService({
      store: createIdentityProviderStore(database.db, box, () => NOW),
      links: createAccountLinkStore(database.db, () => NOW),
      audit: createAuditor({ logger: pino({ level: 'silent' }), sink: { record: (event, fields) => events.push({ event, fields: fields as Record<string, unknown> }) } }),
    });
  const slug = (prefix: string) => `${prefix}-${++n}`;

  it('the github preset fills in GitHub’s endpoints, claims and scopes; the record says a secret is set but never holds it', async () => {
    const s = slug('github');
    const created = await service().create(CLI_OPERATOR, { slug: s, preset: 'github', clientId: 'Iv1.abc', clientSecret: 'gh-very-secret' });
    expect(created).toEqual({
      slug: s,
      displayName: 'GitHub',
      kind: 'oauth2',
      preset: 'github',
      enabled: true,
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      userinfoEndpoint: 'https://api.github.com/user',
      emailsEndpoint: 'https://api.github.com/user/emails',
      clientId: 'Iv1.abc',
      tokenEndpointAuthMethod: 'client_secret_post',
      scopes: ['read:user', 'user:email'],
      useUserinfo: true,
      claims: { subject: 'id', username: 'login', email: 'email', emailVerified: 'email_verified', name: 'name' },
      trustEmail: false,
      groupMappings: [],
      provisioning: 'just_in_time',
      mfaPolicy: 'always_local',
      mfaAcceptedAmr: [],
      mfaAcceptedAcr: [],
      homeRealmDomains: [],
      clientSecretSet: true,
      privateKeySet: false,
      createdAt: NOW,
    });
    expect(await service().credentials(s)).toEqual({ clientSecret: 'gh-very-secret' });
    const audited = events.filter((e) => e.fields.provider === s);
    expect(audited).toEqual([{ event: 'identity_provider.created', fields: { actor_kind: 'operator', actor: 'cli', provider: s, kind: 'oauth2', preset: 'github' } }]);
    expect(JSON.stringify(events)).not.toContain('gh-very-secret');
  });

  it('the microsoft preset: a tenant id fixes the issuer; organizations (the default) accepts each tenant’s own iss, and trusts Entra’s mfa', async () => {
    const fixed = await service().create(CLI_OPERATOR, { slug: slug('entra'), preset: 'microsoft', tenant: '0B3F5A3E-1111-4222-8333-944445555666', clientId: 'app', clientSecret: 'x' });
    expect(fixed).toMatchObject({ kind: 'oidc', issuer: 'https://login.microsoftonline.com/0b3f5a3e-1111-4222-8333-944445555666/v2.0', mfaPolicy: 'trust_upstream', mfaAcceptedAmr: ['mfa'] });
    expect(Object.keys(fixed)).not.toContain('issuerTemplate');
    const multi = await service().create(CLI_OPERATOR, { slug: slug('entra'), preset: 'microsoft', clientId: 'app', clientSecret: 'x', allowedTenants: ['0b3f5a3e-1111-4222-8333-944445555666'] });
    expect(multi).toMatchObject({
      displayName: 'Microsoft',
      issuer: 'https://login.microsoftonline.com/organizations/v2.0',
      issuerTemplate: 'https://login.microsoftonline.com/{tenantid}/v2.0',
      allowedTenants: ['0b3f5a3e-1111-4222-8333-944445555666'],
      claims: { subject: 'sub', username: 'preferred_username', email: 'email', emailVerified: 'email_verified', name: 'name', groups: 'groups' },
    });
    expect(await refusal(service().create(CLI_OPERATOR, { slug: slug('entra'), preset: 'microsoft', tenant: 'bad tenant!', clientId: 'a', clientSecret: 'x' }))).toEqual({
      code: 'invalid_input',
      field: 'tenant',
      message: 'tenant must be a tenant id, a domain, organizations, common or consumers',
    });
    expect(await refusal(service().create(CLI_OPERATOR, { slug: slug('g'), preset: 'google', tenant: 'common', clientId: 'a', clientSecret: 'x' }))).toMatchObject({ field: 'tenant' });
  });

  it('google and a generic oidc provider; the operator’s settings lie over the preset’s, claims member by member', async () => {
    const google = await service().create(CLI_OPERATOR, { slug: slug('google'), preset: 'google', clientId: 'g.apps', clientSecret: 'x', homeRealmDomains: ['Acme-Google.example'] });
    expect(google).toMatchObject({ issuer: 'https://accounts.google.com', claims: { username: 'email' }, homeRealmDomains: ['acme-google.example'] });
    const generic = await service().create(CLI_OPERATOR, {
      slug: slug('okta'),
      displayName: 'Acme SSO',
      issuer: 'https://acme.okta.example/oauth2/default',
      clientId: 'okta-app',
      clientSecret: 'okta-secret',
      claims: { groups: 'groups', username: 'email' },
      groupMappings: [{ upstream: 'Everyone', group: 'staff' }],
      provisioning: 'invited_only',
      mfaPolicy: 'trust_upstream',
    });
    expect(generic).toMatchObject({
      kind: 'oidc',
      preset: 'oidc',
      displayName: 'Acme SSO',
      scopes: ['openid', 'email', 'profile'],
      claims: { subject: 'sub', username: 'email', email: 'email', emailVerified: 'email_verified', name: 'name', groups: 'groups' },
      provisioning: 'invited_only',
      mfaPolicy: 'trust_upstream',
      // RFC 8176's value for a second factor, when the operator names none.
      mfaAcceptedAmr: ['mfa'],
    });
  });

  const base = (): NewIdentityProvider => ({ slug: slug('rule'), issuer: 'https://idp.example', clientId: 'app', clientSecret: 'secret' });

  it.each<[string, Partial<NewIdentityProvider>, string, string]>([
    ['a slug with upper case', { slug: 'Acme' }, 'slug', 'slug must be 1-64 lower-case letters, digits or "-", starting and ending with a letter or digit'],
    ['a display name with a control character', { displayName: 'Acme\u0007' }, 'display_name', 'display_name must be 1-128 characters without control characters'],
    ['an oidc provider without issuer', { issuer: undefined }, 'issuer', 'issuer an OpenID Connect provider needs an issuer'],
    ['a plain-http issuer', { issuer: 'http://idp.example' }, 'issuer', 'issuer must use https (http only on localhost or 127.0.0.1)'],
    ['an issuer with a query', { issuer: 'https://idp.example/?tenant=1' }, 'issuer', 'issuer must not contain a query'],
    ['an issuer with credentials', { issuer: 'https://u:p@idp.example' }, 'issuer', 'issuer must not contain credentials'],
    ['a relative issuer', { issuer: '/idp' }, 'issuer', 'issuer must be an absolute URL'],
    ['scopes without openid', { scopes: ['email'] }, 'scopes', 'scopes an OpenID Connect provider needs the scope openid'],
    ['a repeated scope', { scopes: ['openid', 'openid'] }, 'scopes', 'scopes scopes must not repeat'],
    ['an endpoint on an oidc provider', { tokenEndpoint: 'https://idp.example/token' }, 'token_endpoint', 'token_endpoint applies only to an oauth2 provider (an OpenID Connect provider reads its endpoints from discovery)'],
    ['a template without {tenantid}', { issuerTemplate: 'https://idp.example/x' }, 'issuer_template', 'issuer_template must hold {tenantid} exactly once'],
    ['allowed tenants without a template', { allowedTenants: ['t1'] }, 'allowed_tenants', 'allowed_tenants applies only with an issuer template'],
    ['a client id with a space', { clientId: 'my app' }, 'client_id', 'client_id must be 1-256 visible characters without spaces'],
    ['a claim name with a space', { claims: { username: 'user name' } }, 'claims', 'claims.username must be 1-256 visible characters without spaces'],
    ['a Gatehouse group with a comma', { groupMappings: [{ upstream: 'x', group: 'a,b' }] }, 'group_mappings', 'group_mappings each group must be 1-64 characters without spaces or commas'],
    ['a domain that is no DNS name', { homeRealmDomains: ['acme'] }, 'home_realm_domains', 'home_realm_domains each domain must be a lower-case DNS name (example.com)'],
    ['a secret method without a secret', { clientSecret: undefined }, 'client_secret', 'client_secret_basic needs a client_secret'],
    ['an empty secret', { clientSecret: '' }, 'client_secret', 'client_secret must be 1-4096 characters without control characters'],
    ['a private key with a secret method', { privateJwk: ecJwk }, 'private_jwk', 'private_jwk applies only to the private_key_jwt auth method'],
    ['private_key_jwt with a secret', { tokenEndpointAuthMethod: 'private_key_jwt', privateJwk: ecJwk }, 'client_secret', 'a private_key_jwt provider authenticates with its private key: it has no client secret'],
    ['private_key_jwt without a key', { tokenEndpointAuthMethod: 'private_key_jwt', clientSecret: undefined }, 'private_jwk', 'private_key_jwt needs a private_jwk'],
    ['a public key for private_key_jwt', { tokenEndpointAuthMethod: 'private_key_jwt', clientSecret: undefined, privateJwk: { ...ecJwk, d: undefined } }, 'private_jwk', 'private_jwk must hold the private key (its "d" member)'],
    ['a symmetric key', { tokenEndpointAuthMethod: 'private_key_jwt', clientSecret: undefined, privateJwk: { kty: 'oct', k: 'c2VjcmV0' } }, 'private_jwk', 'private_jwk must be an RSA, EC or OKP key'],
    ['a broken private key', { tokenEndpointAuthMethod: 'private_key_jwt', clientSecret: undefined, privateJwk: { ...ecJwk, crv: 'P-999' } }, 'private_jwk', 'private_jwk is not a usable private key'],
    ['a kind that contradicts the preset', { preset: 'github', kind: 'oidc' }, 'kind', 'the preset github makes an oauth2 provider, not oidc'],
    ['an unknown preset', { preset: 'okta' as never }, 'preset', 'preset "okta" is not one of google, microsoft, github, oidc, oauth2'],
  ])('refuses %s', async (_name, over, field, message) => {
    expect(await refusal(service().create(CLI_OPERATOR, { ...base(), ...over }))).toEqual({ code: 'invalid_input', field, message });
  });

  it('oauth2 needs its endpoints and refuses oidc-only settings and trust_upstream', async () => {
    const oauth2 = { slug: slug('oauth'), kind: 'oauth2' as const, clientId: 'a', clientSecret: 's' };
    expect(await refusal(service().create(CLI_OPERATOR, oauth2))).toMatchObject({ field: 'authorization_endpoint', message: 'authorization_endpoint an oauth2 provider needs its authorization, token and user endpoints' });
    const endpoints = { authorizationEndpoint: 'https://git.example/authorize', tokenEndpoint: 'https://git.example/token', userinfoEndpoint: 'http://127.0.0.1:4000/user' };
    expect(await refusal(service().create(CLI_OPERATOR, { ...oauth2, ...endpoints, issuer: 'https://git.example' }))).toMatchObject({ field: 'issuer', message: 'issuer applies only to an OpenID Connect provider' });
    expect(await refusal(service().create(CLI_OPERATOR, { ...oauth2, ...endpoints, mfaPolicy: 'trust_upstream' }))).toMatchObject({ field: 'mfa_policy' });
    expect(await refusal(service().create(CLI_OPERATOR, { ...oauth2, ...endpoints, useUserinfo: false }))).toMatchObject({ field: 'use_userinfo' });
    expect(await service().create(CLI_OPERATOR, { ...oauth2, ...endpoints, claims: { subject: 'id' } })).toMatchObject({ kind: 'oauth2', preset: 'oauth2', scopes: [], claims: { subject: 'id' } });
  });

  it('a slug is taken once; unknown slugs are unknown_provider', async () => {
    const s = slug('dup');
    await service().create(CLI_OPERATOR, { ...base(), slug: s });
    expect(await refusal(service().create(CLI_OPERATOR, { ...base(), slug: s }))).toEqual({ code: 'duplicate_provider', field: 'slug', message: `identity provider "${s}" already exists` });
    const calls = [() => service().get('nope'), () => service().update(CLI_OPERATOR, 'nope', { enabled: false }), () => service().remove(CLI_OPERATOR, 'nope'), () => service().credentials('nope')];
    for (const call of calls) {
      expect(await refusal(call())).toEqual({ code: 'unknown_provider', field: undefined, message: 'unknown identity provider "nope"' });
    }
  });

  it('a home-realm domain belongs to one provider', async () => {
    const first = await service().create(CLI_OPERATOR, { ...base(), homeRealmDomains: ['realm-one.example'] });
    const second = await service().create(CLI_OPERATOR, { ...base() });
    expect(await refusal(service().update(CLI_OPERATOR, second.slug, { homeRealmDomains: ['REALM-ONE.example'] }))).toEqual({
      code: 'domain_in_use',
      field: 'home_realm_domains',
      message: `the domain realm-one.example already belongs to the identity provider "${first.slug}"`,
    });
    // Its own domains do not collide with themselves.
    expect(await service().update(CLI_OPERATOR, first.slug, { homeRealmDomains: ['realm-one.example', 'realm-two.example'] })).toMatchObject({ homeRealmDomains: ['realm-one.example', 'realm-two.example'] });
    expect((await service().forEmailDomain('Jane@Realm-Two.Example'))?.slug).toBe(first.slug);
    expect(await service().forEmailDomain('jane@elsewhere.example')).toBeUndefined();
    await service().update(CLI_OPERATOR, first.slug, { enabled: false });
    expect(await service().forEmailDomain('realm-two.example')).toBeUndefined();
  });

  it('update keeps what is not named, removes with null, re-checks the whole provider, and audits the field names only', async () => {
    const created = await service().create(CLI_OPERATOR, { ...base(), issuerTemplate: 'https://idp.example/{tenantid}', allowedTenants: ['t1'], claims: { groups: 'roles' } });
    events.length = 0;
    const updated = await service().update(CLI_OPERATOR, created.slug, { displayName: 'Renamed', issuerTemplate: null, allowedTenants: null, claims: { groups: null }, clientSecret: 'rotated-secret' });
    expect(updated).toMatchObject({ displayName: 'Renamed', issuer: 'https://idp.example', clientId: 'app', updatedAt: NOW });
    expect(Object.keys(updated)).not.toContain('issuerTemplate');
    expect(updated.claims).toEqual({ subject: 'sub', username: 'preferred_username', email: 'email', emailVerified: 'email_verified', name: 'name' });
    expect(await service().credentials(created.slug)).toEqual({ clientSecret: 'rotated-secret' });
    expect(events).toEqual([
      { event: 'identity_provider.updated', fields: { actor_kind: 'operator', actor: 'cli', provider: created.slug, fields: 'display_name,issuer_template,allowed_tenants,claims,client_secret' } },
    ]);
    // Removing the template while tenants stay is refused: the whole result is checked.
    const again = await service().create(CLI_OPERATOR, { ...base(), issuerTemplate: 'https://idp.example/{tenantid}', allowedTenants: ['t1'] });
    expect(await refusal(service().update(CLI_OPERATOR, again.slug, { issuerTemplate: null }))).toMatchObject({ field: 'allowed_tenants' });
    expect(await refusal(service().update(CLI_OPERATOR, again.slug, { mfaPolicy: 'trust_upstream', mfaAcceptedAmr: [] }))).toEqual({
      code: 'invalid_input',
      field: 'mfa_policy',
      message: 'mfa_policy trust_upstream needs at least one accepted amr or acr value',
    });
    expect(await refusal(service().update(CLI_OPERATOR, again.slug, {}))).toEqual({ code: 'invalid_input', field: undefined, message: 'nothing to update: give at least one setting, a client secret or a private key' });
  });

  it('switching to private_key_jwt needs a key and drops the secret; switching back needs a secret and drops the key', async () => {
    const created = await service().create(CLI_OPERATOR, base());
    expect(await refusal(service().update(CLI_OPERATOR, created.slug, { tokenEndpointAuthMethod: 'private_key_jwt' }))).toMatchObject({ field: 'private_jwk' });
    const jwt = await service().update(CLI_OPERATOR, created.slug, { tokenEndpointAuthMethod: 'private_key_jwt', privateJwk: ecJwk });
    expect(jwt).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', clientSecretSet: false, privateKeySet: true });
    expect(await service().credentials(created.slug)).toEqual({ privateJwk: ecJwk });
    // The stored key is kept for another change.
    expect(await service().update(CLI_OPERATOR, created.slug, { scopes: ['openid'] })).toMatchObject({ privateKeySet: true });
    expect(await refusal(service().update(CLI_OPERATOR, created.slug, { tokenEndpointAuthMethod: 'client_secret_post' }))).toMatchObject({ field: 'client_secret' });
    const back = await service().update(CLI_OPERATOR, created.slug, { tokenEndpointAuthMethod: 'client_secret_post', clientSecret: 'new-one' });
    expect(back).toMatchObject({ clientSecretSet: true, privateKeySet: false });
    expect(await service().credentials(created.slug)).toEqual({ clientSecret: 'new-one' });
  });

  it('enabled() lists the enabled providers by display name; list pages by slug with an opaque cursor; remove audits', async () => {
    const svc = service();
    const mine = (await svc.list()).items.map((p) => p.slug);
    for (const s of mine) await svc.remove(CLI_OPERATOR, s);
    await svc.create(CLI_OPERATOR, { ...base(), slug: 'b-zed', displayName: 'Zed' });
    await svc.create(CLI_OPERATOR, { ...base(), slug: 'c-alpha', displayName: 'Alpha' });
    await svc.create(CLI_OPERATOR, { ...base(), slug: 'a-off', displayName: 'Off', enabled: false });
    expect((await svc.enabled()).map((p) => p.displayName)).toEqual(['Alpha', 'Zed']);
    const first = await svc.list({ limit: 2 });
    expect(first.items.map((p) => p.slug)).toEqual(['a-off', 'b-zed']);
    expect(first.next).toEqual(expect.any(String));
    expect(await svc.list({ after: first.next!, limit: 2 })).toMatchObject({ items: [{ slug: 'c-alpha' }], next: null });
    expect(await refusal(svc.list({ after: 'bm90LWEtY3Vyc29y' }))).toEqual({ code: 'invalid_input', field: 'after', message: 'the cursor is not one this server issued' });
    // Its account links go with it; the accounts stay, and links to other providers too.
    const account = await createAccountStore(database.db, box).create({ username: `linked-${engine}`, email: 'l@example.com', name: 'L', groups: [], passwordHash: 'x' });
    const links = createAccountLinkStore(database.db, () => NOW);
    await links.create({ provider: 'b-zed', subject: 'up-1', accountId: account.id });
    await links.create({ provider: 'c-alpha', subject: 'up-1', accountId: account.id });
    events.length = 0;
    await svc.remove(CLI_OPERATOR, 'b-zed');
    expect(events).toEqual([{ event: 'identity_provider.removed', fields: { actor_kind: 'operator', actor: 'cli', provider: 'b-zed', links: 1 } }]);
    expect((await links.listByAccount(account.id)).map((l) => l.provider)).toEqual(['c-alpha']);
  });
});
