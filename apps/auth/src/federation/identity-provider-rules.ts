/**
 * The rules a provider's settings obey, checked on the whole provider at create and after every
 * update (zod; a refusal is IdentityProviderError `invalid_input` naming the field):
 * - slug: 1-64 of lower-case letters, digits and "-", starting and ending with a letter or digit;
 * - display name: 1-128 characters without control characters;
 * - URLs (issuer, endpoints): absolute https, or http on localhost / 127.0.0.1 / [::1] (tests,
 *   development); no credentials or fragment; at most 2048 characters; the issuer has no query;
 * - oidc: an issuer, the scope `openid`, and none of the four endpoints (discovery gives them);
 *   issuerTemplate holds `{tenantid}` once and is otherwise a URL like the issuer; allowedTenants
 *   only with a template;
 * - oauth2: authorization, token and user endpoints (emails optional), no issuer or template,
 *   userinfo always read, and no `trust_upstream` MFA policy (an OAuth 2.0 answer has no `amr`);
 * - client id: 1-256 visible characters; scopes: at most 50 scope tokens (RFC 6749 §3.3), no duplicates;
 * - claim names: 1-256 visible characters; groups: at most 500 rows, the upstream name 1-256
 *   characters, the Gatehouse group like an account's group (1-64, no spaces or commas);
 * - trust_upstream needs at least one accepted amr or acr value (1-128 visible characters each, at most 20);
 * - home-realm domains: at most 100 lower-cased DNS names, no duplicates;
 * - client_secret_basic and client_secret_post need a client secret (1-4096 characters without
 *   control characters); private_key_jwt needs a private JWK (RSA, EC or OKP, with its private
 *   part, no symmetric key) and has no secret.
 */
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { z } from 'zod';
import { IDP_AUTH_METHODS, IDP_KINDS, IDP_PRESETS, IdentityProviderError, MFA_POLICIES, PROVISIONING_MODES, type IdentityProviderField, type IdentityProviderSettings, type PrivateJwk } from './identity-provider.ts';

const MAX_URL = 2048;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const visible = (max: number) => z.string().regex(new RegExp(`^[\\x21-\\x7e]{1,${max}}$`), `must be 1-${max} visible characters without spaces`);

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
const GROUP = /^[^\s,\p{Cc}]{1,64}$/u;

/** Why a URL is refused, or undefined when it is acceptable. */
function urlProblem(value: string, options: { query: boolean }): string | undefined {
  if (value.length > MAX_URL) return `must be at most ${MAX_URL} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return 'must use https (http only on localhost or 127.0.0.1)';
  if (url.username || url.password) return 'must not contain credentials';
  if (value.includes('#')) return 'must not contain a fragment';
  if (!options.query && url.search) return 'must not contain a query';
  return undefined;
}

const Url = (query: boolean) =>
  z.string().superRefine((value, ctx) => {
    const problem = urlProblem(value, { query });
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const unique = <T extends z.ZodType<string>>(item: T, max: number, what: string) =>
  z
    .array(item)
    .max(max, `at most ${max} ${what}`)
    .refine((list) => new Set(list).size === list.length, `${what} must not repeat`);

const Claims = z.object({
  subject: visible(256),
  username: visible(256),
  email: visible(256),
  emailVerified: visible(256),
  name: visible(256),
  groups: visible(256).optional(),
});

const Settings = z
  .object({
    slug: z.string().regex(SLUG, 'must be 1-64 lower-case letters, digits or "-", starting and ending with a letter or digit'),
    displayName: z.string().regex(/^[^\p{Cc}]{1,128}$/u, 'must be 1-128 characters without control characters'),
    kind: z.enum(IDP_KINDS),
    preset: z.enum(IDP_PRESETS),
    enabled: z.boolean(),
    issuer: Url(false).optional(),
    issuerTemplate: z
      .string()
      .refine((t) => t.split('{tenantid}').length === 2, 'must hold {tenantid} exactly once')
      .superRefine((t, ctx) => {
        const problem = urlProblem(t.replace('{tenantid}', 'tenant'), { query: false });
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    allowedTenants: unique(z.string().regex(/^[A-Za-z0-9.-]{1,64}$/, 'each tenant must be 1-64 letters, digits, "." or "-"'), 100, 'tenants').optional(),
    authorizationEndpoint: Url(true).optional(),
    tokenEndpoint: Url(true).optional(),
    userinfoEndpoint: Url(true).optional(),
    emailsEndpoint: Url(true).optional(),
    clientId: visible(256),
    tokenEndpointAuthMethod: z.enum(IDP_AUTH_METHODS),
    scopes: unique(z.string().regex(SCOPE_TOKEN, 'each scope must be 1-128 characters allowed in a scope token (RFC 6749 §3.3)'), 50, 'scopes'),
    useUserinfo: z.boolean(),
    claims: Claims,
    trustEmail: z.boolean(),
    groupMappings: z
      .array(z.object({ upstream: z.string().regex(/^[^\p{Cc}]{1,256}$/u, 'the upstream group must be 1-256 characters'), group: z.string().regex(GROUP, 'each group must be 1-64 characters without spaces or commas') }))
      .max(500, 'at most 500 group mappings')
      .refine((rows) => new Set(rows.map((r) => `${r.upstream}\n${r.group}`)).size === rows.length, 'group mappings must not repeat'),
    provisioning: z.enum(PROVISIONING_MODES),
    mfaPolicy: z.enum(MFA_POLICIES),
    mfaAcceptedAmr: unique(visible(128), 20, 'amr values'),
    mfaAcceptedAcr: unique(visible(128), 20, 'acr values'),
    homeRealmDomains: unique(z.string().regex(DOMAIN, 'each domain must be a lower-case DNS name (example.com)'), 100, 'domains'),
  })
  .superRefine((s, ctx) => {
    const issue = (path: keyof IdentityProviderSettings, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (s.kind === 'oidc') {
      if (s.issuer === undefined) issue('issuer', 'an OpenID Connect provider needs an issuer');
      if (!s.scopes.includes('openid')) issue('scopes', 'an OpenID Connect provider needs the scope openid');
      for (const key of ['authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint', 'emailsEndpoint'] as const) {
        if (s[key] !== undefined) issue(key, 'applies only to an oauth2 provider (an OpenID Connect provider reads its endpoints from discovery)');
      }
      if (s.allowedTenants !== undefined && s.issuerTemplate === undefined) issue('allowedTenants', 'applies only with an issuer template');
    } else {
      for (const key of ['authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint'] as const) {
        if (s[key] === undefined) issue(key, 'an oauth2 provider needs its authorization, token and user endpoints');
      }
      for (const key of ['issuer', 'issuerTemplate', 'allowedTenants'] as const) {
        if (s[key] !== undefined) issue(key, 'applies only to an OpenID Connect provider');
      }
      if (!s.useUserinfo) issue('useUserinfo', 'an oauth2 provider always reads its user endpoint');
      if (s.mfaPolicy === 'trust_upstream') issue('mfaPolicy', 'an oauth2 provider reports no amr or acr: use always_local');
    }
    if (s.mfaPolicy === 'trust_upstream' && s.mfaAcceptedAmr.length === 0 && s.mfaAcceptedAcr.length === 0) {
      issue('mfaPolicy', 'trust_upstream needs at least one accepted amr or acr value');
    }
  });

/** Settings members by the field name refusals use (the JSON shape's). */
const FIELD_OF: Readonly<Record<keyof IdentityProviderSettings, IdentityProviderField>> = {
  slug: 'slug',
  displayName: 'display_name',
  kind: 'kind',
  preset: 'preset',
  enabled: 'enabled',
  issuer: 'issuer',
  issuerTemplate: 'issuer_template',
  allowedTenants: 'allowed_tenants',
  authorizationEndpoint: 'authorization_endpoint',
  tokenEndpoint: 'token_endpoint',
  userinfoEndpoint: 'userinfo_endpoint',
  emailsEndpoint: 'emails_endpoint',
  clientId: 'client_id',
  tokenEndpointAuthMethod: 'token_endpoint_auth_method',
  scopes: 'scopes',
  useUserinfo: 'use_userinfo',
  claims: 'claims',
  trustEmail: 'trust_email',
  groupMappings: 'group_mappings',
  provisioning: 'provisioning',
  mfaPolicy: 'mfa_policy',
  mfaAcceptedAmr: 'mfa_accepted_amr',
  mfaAcceptedAcr: 'mfa_accepted_acr',
  homeRealmDomains: 'home_realm_domains',
};

/** The field name of a settings member (for messages of other checks). */
export const fieldOf = (key: keyof IdentityProviderSettings): IdentityProviderField => FIELD_OF[key];

const CLAIM_NAMES: Readonly<Record<string, string>> = { emailVerified: 'email_verified' };

/** Throws IdentityProviderError `invalid_input` naming the first field that breaks a rule. */
export function checkSettings(settings: IdentityProviderSettings): void {
  const parsed = Settings.safeParse(settings);
  if (parsed.success) return;
  const first = parsed.error.issues[0]!;
  const [top, ...rest] = first.path;
  const field = FIELD_OF[top as keyof IdentityProviderSettings] ?? 'slug';
  const sub = top === 'claims' && typeof rest[0] === 'string' ? `.${CLAIM_NAMES[rest[0]] ?? rest[0]}` : '';
  throw new IdentityProviderError('invalid_input', `${field}${sub} ${first.message}`, field);
}

/** Throws `invalid_input` (client_secret) unless the secret is acceptable. */
export function checkClientSecret(secret: string): void {
  if (!/^[^\p{Cc}]{1,4096}$/u.test(secret)) throw new IdentityProviderError('invalid_input', 'client_secret must be 1-4096 characters without control characters', 'client_secret');
}

/** The JWK as a private key for signing client assertions; throws `invalid_input` (private_jwk). */
export function checkPrivateJwk(jwk: unknown): PrivateJwk {
  const invalid = (why: string) => new IdentityProviderError('invalid_input', `private_jwk ${why}`, 'private_jwk');
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw invalid('must be a JSON Web Key object');
  const key = jwk as Record<string, unknown>;
  if (!['RSA', 'EC', 'OKP'].includes(key.kty as string)) throw invalid('must be an RSA, EC or OKP key');
  if (typeof key.d !== 'string') throw invalid('must hold the private key (its "d" member)');
  if (JSON.stringify(key).length > 16_384) throw invalid('is too large');
  try {
    createPrivateKey({ key: key as JsonWebKey, format: 'jwk' });
  } catch {
    throw invalid('is not a usable private key');
  }
  return key as PrivateJwk;
}
