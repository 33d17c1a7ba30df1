/**
 * Storage of the upstream identity providers (identity_providers). Rules:
 * - the store checks nothing: identity-provider-service.ts validates what operators ask for;
 * - the client secret and the private JWK are sealed with the SecretBox on write and opened only
 *   by credentials(); records never carry them, only whether they are set;
 * - create() refuses an existing slug with `duplicate_provider` (one statement, no read first);
 * - update() replaces every setting of an existing provider (the slug, kind and creation time stay);
 *   a secret given as undefined is kept, as null removed;
 * - lists are ordered by slug; `after`/`limit` page them (keyset).
 */
import type { Kysely, Selectable } from 'kysely';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { AuthSchema, IdentityProvidersTable } from '../storage/schema.ts';
import { IdentityProviderError, type IdentityProvider, type IdentityProviderCredentials, type IdentityProviderSettings, type PrivateJwk } from './identity-provider.ts';

/** Secrets to write: undefined keeps the stored one, null removes it. */
export interface IdentityProviderSecretChanges {
  clientSecret?: string | null;
  privateJwk?: PrivateJwk | null;
}

export interface IdentityProviderStore {
  create(settings: IdentityProviderSettings, secrets: IdentityProviderCredentials): Promise<IdentityProvider>;
  find(slug: string): Promise<IdentityProvider | undefined>;
  list(page?: { after?: string; limit?: number }): Promise<IdentityProvider[]>;
  /** Throws `unknown_provider`. */
  update(slug: string, settings: IdentityProviderSettings, secrets: IdentityProviderSecretChanges): Promise<IdentityProvider>;
  remove(slug: string): Promise<boolean>;
  /** The stored secrets in clear; undefined for an unknown provider. */
  credentials(slug: string): Promise<IdentityProviderCredentials | undefined>;
}

type Row = Selectable<IdentityProvidersTable>;

const optional = <K extends string, V>(key: K, value: V | null): { [P in K]?: V } => (value === null ? {} : ({ [key]: value } as { [P in K]?: V }));

function toRecord(row: Row): IdentityProvider {
  return {
    slug: row.slug,
    displayName: row.display_name,
    kind: row.kind as IdentityProvider['kind'],
    preset: (row.preset ?? row.kind) as IdentityProvider['preset'],
    enabled: row.enabled === 1,
    ...optional('issuer', row.issuer),
    ...optional('issuerTemplate', row.issuer_template),
    ...optional('allowedTenants', row.allowed_tenants === null ? null : (JSON.parse(row.allowed_tenants) as string[])),
    ...optional('authorizationEndpoint', row.authorization_endpoint),
    ...optional('tokenEndpoint', row.token_endpoint),
    ...optional('userinfoEndpoint', row.userinfo_endpoint),
    ...optional('emailsEndpoint', row.emails_endpoint),
    clientId: row.client_id,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method as IdentityProvider['tokenEndpointAuthMethod'],
    scopes: JSON.parse(row.scopes) as string[],
    useUserinfo: row.use_userinfo === 1,
    claims: JSON.parse(row.claims) as IdentityProvider['claims'],
    trustEmail: row.trust_email === 1,
    groupMappings: JSON.parse(row.group_mappings) as IdentityProvider['groupMappings'],
    provisioning: row.provisioning as IdentityProvider['provisioning'],
    mfaPolicy: row.mfa_policy as IdentityProvider['mfaPolicy'],
    mfaAcceptedAmr: JSON.parse(row.mfa_accepted_amr) as string[],
    mfaAcceptedAcr: JSON.parse(row.mfa_accepted_acr) as string[],
    homeRealmDomains: JSON.parse(row.home_realm_domains) as string[],
    clientSecretSet: row.client_secret_sealed !== null,
    privateKeySet: row.private_jwk_sealed !== null,
    createdAt: Number(row.created_at),
    ...optional('updatedAt', row.updated_at === null ? null : Number(row.updated_at)),
  };
}

/** The columns of the settings (every column but the key, the secrets and the instants). */
function settingsColumns(s: IdentityProviderSettings) {
  return {
    display_name: s.displayName,
    kind: s.kind,
    preset: s.preset,
    enabled: s.enabled ? 1 : 0,
    issuer: s.issuer ?? null,
    issuer_template: s.issuerTemplate ?? null,
    allowed_tenants: s.allowedTenants === undefined ? null : JSON.stringify(s.allowedTenants),
    authorization_endpoint: s.authorizationEndpoint ?? null,
    token_endpoint: s.tokenEndpoint ?? null,
    userinfo_endpoint: s.userinfoEndpoint ?? null,
    emails_endpoint: s.emailsEndpoint ?? null,
    client_id: s.clientId,
    token_endpoint_auth_method: s.tokenEndpointAuthMethod,
    scopes: JSON.stringify(s.scopes),
    use_userinfo: s.useUserinfo ? 1 : 0,
    claims: JSON.stringify(s.claims),
    trust_email: s.trustEmail ? 1 : 0,
    group_mappings: JSON.stringify(s.groupMappings.map(({ upstream, group }) => ({ upstream, group }))),
    provisioning: s.provisioning,
    mfa_policy: s.mfaPolicy,
    mfa_accepted_amr: JSON.stringify(s.mfaAcceptedAmr),
    mfa_accepted_acr: JSON.stringify(s.mfaAcceptedAcr),
    home_realm_domains: JSON.stringify(s.homeRealmDomains),
  };
}

export function createIdentityProviderStore(db: Kysely<AuthSchema>, box: SecretBox, clock: () => number = Date.now): IdentityProviderStore {
  const find = async (slug: string) => {
    const row = await db.selectFrom('identity_providers').selectAll().where('slug', '=', slug).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  };
  const unknown = (slug: string) => new IdentityProviderError('unknown_provider', `unknown identity provider "${slug}"`);
  const sealed = <T>(value: T | null | undefined, text: (v: T) => string) => (value === undefined ? undefined : value === null ? null : box.seal(text(value)));

  return {
    async create(settings, secrets) {
      const result = await db
        .insertInto('identity_providers')
        .values({
          slug: settings.slug,
          ...settingsColumns(settings),
          client_secret_sealed: sealed(secrets.clientSecret, String) ?? null,
          private_jwk_sealed: sealed(secrets.privateJwk, JSON.stringify) ?? null,
          created_at: clock(),
          updated_at: null,
        })
        .onConflict((oc) => oc.column('slug').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) throw new IdentityProviderError('duplicate_provider', `identity provider "${settings.slug}" already exists`, 'slug');
      return (await find(settings.slug))!;
    },

    find,

    async list(page = {}) {
      let query = db.selectFrom('identity_providers').selectAll().orderBy('slug');
      if (page.after !== undefined) query = query.where('slug', '>', page.after);
      if (page.limit !== undefined) query = query.limit(page.limit);
      return (await query.execute()).map(toRecord);
    },

    async update(slug, settings, secrets) {
      const clientSecret = sealed(secrets.clientSecret, String);
      const privateJwk = sealed(secrets.privateJwk, JSON.stringify);
      const { kind: _kind, ...columns } = settingsColumns(settings);
      const result = await db
        .updateTable('identity_providers')
        .set({
          ...columns,
          ...(clientSecret !== undefined ? { client_secret_sealed: clientSecret } : {}),
          ...(privateJwk !== undefined ? { private_jwk_sealed: privateJwk } : {}),
          updated_at: clock(),
        })
        .where('slug', '=', slug)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw unknown(slug);
      return (await find(slug))!;
    },

    async remove(slug) {
      const result = await db.deleteFrom('identity_providers').where('slug', '=', slug).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async credentials(slug) {
      const row = await db.selectFrom('identity_providers').select(['client_secret_sealed', 'private_jwk_sealed']).where('slug', '=', slug).executeTakeFirst();
      if (!row) return undefined;
      return {
        ...(row.client_secret_sealed !== null ? { clientSecret: box.open(row.client_secret_sealed) } : {}),
        ...(row.private_jwk_sealed !== null ? { privateJwk: JSON.parse(box.open(row.private_jwk_sealed)) as PrivateJwk } : {}),
      };
    },
  };
}
