/**
 * The registry of upstream identity providers: the one service behind `authctl idp`, the admin
 * API (/admin/v1/identity-providers) and the federated sign-in. Rules:
 * - create() starts from the preset (identity-provider-presets.ts; `oidc` unless a kind or preset
 *   is named, and a kind that contradicts the preset is refused), lays the operator's settings
 *   over it (claims member by member), and checks the whole provider (identity-provider-rules.ts);
 *   it is enabled, provisions just in time and asks a Gatehouse factor unless told otherwise;
 * - update() needs at least one field, keeps the others, and checks the whole resulting provider;
 *   the slug, kind and preset never change. null removes an optional setting;
 * - secrets follow the auth method: client_secret_basic / client_secret_post need a client secret
 *   (given now or stored), private_key_jwt a private JWK (given now or stored) and no secret;
 *   switching methods removes the stored credential of the other kind;
 * - a home-realm domain belongs to one provider: another's is refused with `domain_in_use`;
 * - every change writes one audit event naming the actor and the provider
 *   (`identity_provider.created|updated|removed`), never a secret; reads are not audited;
 * - remove() also removes every account link to the provider (its users' accounts stay, and sign
 *   in some other way); the audit event says how many;
 * - reads never carry a secret (only `clientSecretSet` / `privateKeySet`); credentials() opens
 *   them for the federated sign-in alone;
 * - list pages by slug (keyset): `next` is an opaque cursor to pass back as `after`; a cursor this
 *   server did not issue is `invalid_input`; an unknown slug is `unknown_provider`, never a no-op.
 */
import { keyCursor } from '../storage/key-cursor.ts';
import { actorFields, type Actor } from '../audit/actor.ts';
import type { Auditor } from '../audit/auditor.ts';
import {
  IdentityProviderError,
  type ClaimMapping,
  type IdentityProvider,
  type IdentityProviderCredentials,
  type IdentityProviderKind,
  type IdentityProviderSettings,
  type IdpPresetName,
  type PrivateJwk,
} from './identity-provider.ts';
import { isMicrosoftTenant, PRESET_KIND, presetSettings } from './identity-provider-presets.ts';
import { checkClientSecret, checkPrivateJwk, checkSettings, fieldOf, SLUG } from './identity-provider-rules.ts';
import type { IdentityProviderSecretChanges, IdentityProviderStore } from './identity-provider-store.ts';
import type { AccountLinkStore } from './account-link-store.ts';

/** Settings an operator may give; every one optional but the slug and client id. */
type Tunable = Omit<IdentityProviderSettings, 'slug' | 'kind' | 'preset' | 'claims' | 'clientId'>;

export interface NewIdentityProvider extends Partial<Tunable> {
  slug: string;
  clientId: string;
  /** The preset to start from; default: the kind's generic preset (`oidc`). */
  preset?: IdpPresetName;
  kind?: IdentityProviderKind;
  /** microsoft preset only: tenant id, verified domain, `organizations` (default), `common` or `consumers`. */
  tenant?: string;
  claims?: Partial<ClaimMapping>;
  clientSecret?: string;
  /** private_key_jwt: the private JWK (object) that signs client assertions. */
  privateJwk?: unknown;
}

/** The changes update() makes; an absent field keeps its value, null removes an optional one. */
export interface IdentityProviderChanges {
  displayName?: string;
  enabled?: boolean;
  issuer?: string;
  issuerTemplate?: string | null;
  allowedTenants?: string[] | null;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  emailsEndpoint?: string | null;
  clientId?: string;
  clientSecret?: string;
  privateJwk?: unknown;
  tokenEndpointAuthMethod?: IdentityProviderSettings['tokenEndpointAuthMethod'];
  scopes?: string[];
  useUserinfo?: boolean;
  claims?: Partial<Omit<ClaimMapping, 'groups'>> & { groups?: string | null };
  trustEmail?: boolean;
  groupMappings?: IdentityProviderSettings['groupMappings'];
  provisioning?: IdentityProviderSettings['provisioning'];
  mfaPolicy?: IdentityProviderSettings['mfaPolicy'];
  mfaAcceptedAmr?: string[];
  mfaAcceptedAcr?: string[];
  homeRealmDomains?: string[];
}

export interface IdentityProviderService {
  /** By slug; with `limit`, one keyset page after the cursor `after`, and the `next` cursor (null on the last page). */
  list(page?: { after?: string; limit?: number }): Promise<{ items: IdentityProvider[]; next: string | null }>;
  /** Throws `unknown_provider`. */
  get(slug: string): Promise<IdentityProvider>;
  create(actor: Actor, input: NewIdentityProvider): Promise<IdentityProvider>;
  update(actor: Actor, slug: string, changes: IdentityProviderChanges): Promise<IdentityProvider>;
  remove(actor: Actor, slug: string): Promise<void>;
  /** The enabled providers, by display name then slug: the login page's buttons. */
  enabled(): Promise<IdentityProvider[]>;
  /** The enabled provider whose home-realm domains hold the domain of `emailOrDomain`, if any. */
  forEmailDomain(emailOrDomain: string): Promise<IdentityProvider | undefined>;
  /** The provider's client secret / private JWK in clear, for the sign-in; throws `unknown_provider`. */
  credentials(slug: string): Promise<IdentityProviderCredentials>;
}

export interface IdentityProviderServiceDeps {
  store: IdentityProviderStore;
  /** The account links to a provider go with it (account-link-store.ts). */
  links: Pick<AccountLinkStore, 'removeByProvider'>;
  audit: Auditor;
}

const CHANGE_FIELDS = [
  'displayName',
  'enabled',
  'issuer',
  'issuerTemplate',
  'allowedTenants',
  'authorizationEndpoint',
  'tokenEndpoint',
  'userinfoEndpoint',
  'emailsEndpoint',
  'clientId',
  'tokenEndpointAuthMethod',
  'scopes',
  'useUserinfo',
  'claims',
  'trustEmail',
  'groupMappings',
  'provisioning',
  'mfaPolicy',
  'mfaAcceptedAmr',
  'mfaAcceptedAcr',
  'homeRealmDomains',
] as const satisfies readonly (keyof IdentityProviderChanges & keyof IdentityProviderSettings)[];

const providerCursor = keyCursor('p', (key) => SLUG.test(key));

const DEFAULT_NAMES: Partial<Record<IdpPresetName, string>> = { google: 'Google', microsoft: 'Microsoft', github: 'GitHub' };

/** Drops the members whose value is undefined (an explicit undefined must not hide a preset's value). */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function unknownProvider(slug: string): IdentityProviderError {
  return new IdentityProviderError('unknown_provider', `unknown identity provider "${slug}"`);
}

/** Lower-cases the domains (a domain compares case-insensitively). */
const lowerDomains = (domains: string[] | undefined) => domains?.map((d) => d.toLowerCase());

/** The secrets to write for the provider's auth method, from what is given now and what is stored. */
function secretsFor(settings: IdentityProviderSettings, given: { clientSecret?: string; privateJwk?: unknown }, stored: { clientSecretSet: boolean; privateKeySet: boolean }): IdentityProviderSecretChanges {
  if (settings.tokenEndpointAuthMethod === 'private_key_jwt') {
    if (given.clientSecret !== undefined) throw new IdentityProviderError('invalid_input', 'a private_key_jwt provider authenticates with its private key: it has no client secret', 'client_secret');
    const privateJwk: PrivateJwk | undefined = given.privateJwk === undefined ? undefined : checkPrivateJwk(given.privateJwk);
    if (privateJwk === undefined && !stored.privateKeySet) throw new IdentityProviderError('invalid_input', 'private_key_jwt needs a private_jwk', 'private_jwk');
    return { ...(privateJwk !== undefined ? { privateJwk } : {}), ...(stored.clientSecretSet ? { clientSecret: null } : {}) };
  }
  if (given.privateJwk !== undefined) throw new IdentityProviderError('invalid_input', 'private_jwk applies only to the private_key_jwt auth method', 'private_jwk');
  if (given.clientSecret !== undefined) checkClientSecret(given.clientSecret);
  else if (!stored.clientSecretSet) throw new IdentityProviderError('invalid_input', `${settings.tokenEndpointAuthMethod} needs a client_secret`, 'client_secret');
  return { ...(given.clientSecret !== undefined ? { clientSecret: given.clientSecret } : {}), ...(stored.privateKeySet ? { privateJwk: null } : {}) };
}

/** The settings part of a stored provider. */
function settingsOf(p: IdentityProvider): IdentityProviderSettings {
  const { clientSecretSet: _s, privateKeySet: _k, createdAt: _c, updatedAt: _u, ...settings } = p;
  return settings;
}

export function createIdentityProviderService(deps: IdentityProviderServiceDeps): IdentityProviderService {
  const { store, links, audit } = deps;

  const get = async (slug: string) => {
    const provider = await store.find(slug);
    if (!provider) throw unknownProvider(slug);
    return provider;
  };

  /** Refuses a home-realm domain another provider already has. */
  async function checkDomainsFree(slug: string, domains: readonly string[]): Promise<void> {
    if (domains.length === 0) return;
    const wanted = new Set(domains);
    for (const other of await store.list()) {
      if (other.slug === slug) continue;
      const taken = other.homeRealmDomains.find((d) => wanted.has(d));
      if (taken !== undefined) throw new IdentityProviderError('domain_in_use', `the domain ${taken} already belongs to the identity provider "${other.slug}"`, 'home_realm_domains');
    }
  }

  return {
    async list(page = {}) {
      let after: string | undefined;
      if (page.after !== undefined) {
        after = providerCursor.decode(page.after);
        if (after === undefined) throw new IdentityProviderError('invalid_input', 'the cursor is not one this server issued', 'after');
      }
      const from = after === undefined ? {} : { after };
      if (page.limit === undefined) return { items: await store.list(from), next: null };
      const rows = await store.list({ ...from, limit: page.limit + 1 });
      const items = rows.slice(0, page.limit);
      return { items, next: rows.length > page.limit ? providerCursor.encode(items[items.length - 1]!.slug) : null };
    },

    get,

    async create(actor, input) {
      const preset = input.preset ?? input.kind ?? 'oidc';
      if (!(preset in PRESET_KIND)) throw new IdentityProviderError('invalid_input', `preset "${preset}" is not one of google, microsoft, github, oidc, oauth2`, 'preset');
      if (input.kind !== undefined && input.kind !== PRESET_KIND[preset]) {
        throw new IdentityProviderError('invalid_input', `the preset ${preset} makes an ${PRESET_KIND[preset]} provider, not ${input.kind}`, 'kind');
      }
      if (input.tenant !== undefined && (preset !== 'microsoft' || !isMicrosoftTenant(input.tenant))) {
        throw new IdentityProviderError('invalid_input', preset === 'microsoft' ? 'tenant must be a tenant id, a domain, organizations, common or consumers' : 'tenant applies only to the microsoft preset', 'tenant');
      }
      const { slug, clientId, preset: _p, kind: _k, tenant, claims, clientSecret, privateJwk, ...tunable } = input;
      const base = presetSettings(preset, tenant);
      const settings: IdentityProviderSettings = {
        ...base,
        slug,
        clientId,
        displayName: DEFAULT_NAMES[preset] ?? slug,
        enabled: true,
        provisioning: 'just_in_time',
        groupMappings: [],
        homeRealmDomains: [],
        ...defined(tunable),
        claims: { ...base.claims, ...defined(claims ?? {}) },
      };
      if (settings.mfaPolicy === 'trust_upstream' && settings.mfaAcceptedAmr.length === 0 && settings.mfaAcceptedAcr.length === 0) {
        // RFC 8176's `mfa` is what an upstream reports for a second factor, unless told otherwise.
        settings.mfaAcceptedAmr = ['mfa'];
      }
      const domains = lowerDomains(settings.homeRealmDomains);
      if (domains) settings.homeRealmDomains = domains;
      checkSettings(settings);
      const secrets = secretsFor(settings, { ...(clientSecret !== undefined ? { clientSecret } : {}), ...(privateJwk !== undefined ? { privateJwk } : {}) }, { clientSecretSet: false, privateKeySet: false });
      await checkDomainsFree(slug, settings.homeRealmDomains);
      const created = await store.create(settings, { ...(secrets.clientSecret ? { clientSecret: secrets.clientSecret } : {}), ...(secrets.privateJwk ? { privateJwk: secrets.privateJwk } : {}) });
      audit.record('identity_provider.created', { ...actorFields(actor), provider: slug, kind: created.kind, preset: created.preset });
      return created;
    },

    async update(actor, slug, changes) {
      const fields = CHANGE_FIELDS.filter((key) => changes[key] !== undefined);
      const secretFields = (['clientSecret', 'privateJwk'] as const).filter((key) => changes[key] !== undefined);
      if (fields.length === 0 && secretFields.length === 0) {
        throw new IdentityProviderError('invalid_input', 'nothing to update: give at least one setting, a client secret or a private key');
      }
      const current = await get(slug);
      const { claims, clientSecret, privateJwk, ...rest } = changes;
      const merged: Record<string, unknown> = { ...settingsOf(current), ...defined(rest) };
      for (const [key, value] of Object.entries(rest)) if (value === null) delete merged[key];
      const claimsMerged: Record<string, unknown> = { ...current.claims, ...defined(claims ?? {}) };
      if (claims?.groups === null) delete claimsMerged.groups;
      merged.claims = claimsMerged;
      const settings = merged as unknown as IdentityProviderSettings;
      const domains = lowerDomains(settings.homeRealmDomains);
      if (domains) settings.homeRealmDomains = domains;
      checkSettings(settings);
      const secrets = secretsFor(settings, { ...(clientSecret !== undefined ? { clientSecret } : {}), ...(privateJwk !== undefined ? { privateJwk } : {}) }, current);
      await checkDomainsFree(slug, settings.homeRealmDomains);
      const updated = await store.update(slug, settings, secrets);
      const named = [...fields.map(fieldOf), ...secretFields.map((key) => (key === 'clientSecret' ? 'client_secret' : 'private_jwk'))];
      audit.record('identity_provider.updated', { ...actorFields(actor), provider: slug, fields: named.join(',') });
      return updated;
    },

    async remove(actor, slug) {
      if (!(await store.remove(slug))) throw unknownProvider(slug);
      const removedLinks = await links.removeByProvider(slug);
      audit.record('identity_provider.removed', { ...actorFields(actor), provider: slug, links: removedLinks });
    },

    async enabled() {
      const all = await store.list();
      return all.filter((p) => p.enabled).sort((a, b) => a.displayName.localeCompare(b.displayName, 'en') || (a.slug < b.slug ? -1 : 1));
    },

    async forEmailDomain(emailOrDomain) {
      const domain = emailOrDomain.slice(emailOrDomain.lastIndexOf('@') + 1).trim().toLowerCase();
      if (domain === '') return undefined;
      const all = await store.list();
      return all.find((p) => p.enabled && p.homeRealmDomains.includes(domain));
    },

    async credentials(slug) {
      const credentials = await store.credentials(slug);
      if (!credentials) throw unknownProvider(slug);
      return credentials;
    },
  };
}
