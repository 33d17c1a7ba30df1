/**
 * /admin/v1/identity-providers: operators' view and changes of the upstream identity providers
 * users may sign in with, through the registry service (federation/identity-provider-service.ts,
 * shared with `authctl idp`). Rules:
 * - every route needs `admin:identity-providers:write`, reads included (a provider decides who
 *   may sign in as whom); every change is audited by the service with the token's actor;
 * - `{slug}` is the provider's slug; an unknown one is 404 `identity_provider_not_found`;
 * - the list pages by slug (keyset: `limit` 1..200, default 50; `after` the opaque cursor of the
 *   previous page's `next`);
 * - a secret goes in (`client_secret`, `private_jwk`) and never comes out: every answer shows
 *   `client_secret_set` / `private_key_set` instead, in the shape of
 *   admin/json/identity-provider-json.ts, as `authctl idp --json` prints it;
 * - POST starts from `preset` (`tenant` with microsoft) and lays the body's settings over it;
 *   PATCH changes the members given, null removing an optional one;
 * - refusals: a taken slug is 409 `duplicate_identity_provider`, a home-realm domain another
 *   provider has 409 `domain_in_use`; the provider rules (identity-provider-rules.ts) are 400
 *   `validation_failed` naming the field.
 */
import { z } from 'zod';
import { IDP_AUTH_METHODS, IDP_KINDS, IDP_PRESETS, IdentityProviderError, MFA_POLICIES, PROVISIONING_MODES, type ClaimMapping } from '../../federation/identity-provider.ts';
import type { IdentityProviderChanges, IdentityProviderService, NewIdentityProvider } from '../../federation/identity-provider-service.ts';
import { IDP_MEMBER_TEXT, IdentityProviderJson, identityProviderJson, IdentityProviderPageJson } from '../json/identity-provider-json.ts';
import { ADMIN_BASE, type AdminRouter } from './admin-router.ts';
import { AdminProblem, validationFailed } from './problem.ts';

/**
 * Field shapes here; the provider rules themselves are the service's (identity-provider-rules.ts),
 * documented as metadata only: a refused value is its `validation_failed` naming the field.
 */
const Url = z.string().meta({ format: 'uri', maxLength: 2048 });
const Strings = (max: number) => z.array(z.string().max(256)).max(max);
const ClaimsBody = z
  .strictObject({
    subject: z.string().max(256).optional(),
    username: z.string().max(256).optional(),
    email: z.string().max(256).optional(),
    email_verified: z.string().max(256).optional(),
    name: z.string().max(256).optional(),
    groups: z.string().max(256).nullable().optional(),
  })
  .meta({ description: `${IDP_MEMBER_TEXT.claims}; members not given keep their value (the preset's at creation)` });
const GroupMappings = z.array(z.strictObject({ upstream: z.string().max(256), group: z.string().max(64) })).max(500).meta({ description: IDP_MEMBER_TEXT.group_mappings });
/** A private JWK's outer shape; what it must hold is the service's rule. */
const PrivateJwk = z.looseObject({ kty: z.string() }).meta({ description: 'private_key_jwt: the private JWK (RSA, EC or OKP) that signs client assertions; stored sealed, never shown' });
const ClientSecret = z.string().max(4096).meta({ description: 'The secret the upstream issued to Gatehouse; stored sealed, never shown' });

/** The settings POST and PATCH share (the optional ones that PATCH may remove are nullable there). */
const settings = {
  display_name: z.string().max(128).optional().meta({ description: IDP_MEMBER_TEXT.display_name }),
  enabled: z.boolean().optional(),
  issuer: Url.optional().meta({ description: IDP_MEMBER_TEXT.issuer }),
  authorization_endpoint: Url.optional(),
  token_endpoint: Url.optional(),
  userinfo_endpoint: Url.optional().meta({ description: IDP_MEMBER_TEXT.userinfo_endpoint }),
  client_id: z.string().max(256).optional(),
  client_secret: ClientSecret.optional(),
  private_jwk: PrivateJwk.optional(),
  token_endpoint_auth_method: z.enum(IDP_AUTH_METHODS).optional().meta({ description: IDP_MEMBER_TEXT.token_endpoint_auth_method }),
  scopes: Strings(50).optional(),
  use_userinfo: z.boolean().optional().meta({ description: IDP_MEMBER_TEXT.use_userinfo }),
  claims: ClaimsBody.optional(),
  trust_email: z.boolean().optional().meta({ description: IDP_MEMBER_TEXT.trust_email }),
  group_mappings: GroupMappings.optional(),
  provisioning: z.enum(PROVISIONING_MODES).optional().meta({ description: IDP_MEMBER_TEXT.provisioning }),
  mfa_policy: z.enum(MFA_POLICIES).optional().meta({ description: IDP_MEMBER_TEXT.mfa_policy }),
  mfa_accepted_amr: Strings(20).optional(),
  mfa_accepted_acr: Strings(20).optional(),
  home_realm_domains: Strings(100).optional().meta({ description: IDP_MEMBER_TEXT.home_realm_domains }),
};

const NewProviderBody = z.strictObject({
  slug: z.string().meta({ pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$', description: IDP_MEMBER_TEXT.slug }),
  preset: z.enum(IDP_PRESETS).optional().meta({ default: 'oidc', description: 'The settings to start from: google, microsoft (Entra ID), github (OAuth 2.0), or the generic oidc / oauth2' }),
  kind: z.enum(IDP_KINDS).optional().meta({ description: 'oidc or oauth2; must agree with the preset' }),
  tenant: z.string().max(256).optional().meta({ description: 'microsoft: a tenant id, a verified domain, organizations (default), common or consumers' }),
  ...settings,
  client_id: z.string().max(256),
  issuer_template: Url.optional().meta({ description: IDP_MEMBER_TEXT.issuer_template }),
  allowed_tenants: Strings(100).optional().meta({ description: IDP_MEMBER_TEXT.allowed_tenants }),
  emails_endpoint: Url.optional().meta({ description: IDP_MEMBER_TEXT.emails_endpoint }),
});

const ProviderChangesBody = z
  .strictObject({
    ...settings,
    issuer_template: Url.nullable().optional().meta({ description: `${IDP_MEMBER_TEXT.issuer_template}; null removes it` }),
    allowed_tenants: Strings(100).nullable().optional().meta({ description: `${IDP_MEMBER_TEXT.allowed_tenants}; null removes the limit` }),
    emails_endpoint: Url.nullable().optional().meta({ description: `${IDP_MEMBER_TEXT.emails_endpoint}; null removes it` }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'name at least one setting' })
  .meta({ minProperties: 1 });

const ProviderListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z.string().min(1).max(512).optional().meta({ description: 'The `next` cursor of the previous page' }),
});

const SLUG = { slug: 'The identity provider\'s slug' };
const NOT_FOUND = 'No identity provider with this slug (`identity_provider_not_found`)';
const THE_PROVIDER = { description: 'The identity provider (never its secrets)', body: IdentityProviderJson };

type SettingsBody = { [K in keyof typeof settings]?: z.output<(typeof settings)[K]> } & {
  issuer_template?: string | null;
  allowed_tenants?: string[] | null;
  emails_endpoint?: string | null;
};

/** The body's members by the service's names; members not given stay absent. */
function fromBody(body: SettingsBody): IdentityProviderChanges {
  const claims = body.claims && {
    ...(body.claims.subject !== undefined ? { subject: body.claims.subject } : {}),
    ...(body.claims.username !== undefined ? { username: body.claims.username } : {}),
    ...(body.claims.email !== undefined ? { email: body.claims.email } : {}),
    ...(body.claims.email_verified !== undefined ? { emailVerified: body.claims.email_verified } : {}),
    ...(body.claims.name !== undefined ? { name: body.claims.name } : {}),
    ...(body.claims.groups !== undefined ? { groups: body.claims.groups } : {}),
  };
  const changes: Record<keyof IdentityProviderChanges, unknown> = {
    displayName: body.display_name,
    enabled: body.enabled,
    issuer: body.issuer,
    issuerTemplate: body.issuer_template,
    allowedTenants: body.allowed_tenants,
    authorizationEndpoint: body.authorization_endpoint,
    tokenEndpoint: body.token_endpoint,
    userinfoEndpoint: body.userinfo_endpoint,
    emailsEndpoint: body.emails_endpoint,
    clientId: body.client_id,
    clientSecret: body.client_secret,
    privateJwk: body.private_jwk,
    tokenEndpointAuthMethod: body.token_endpoint_auth_method,
    scopes: body.scopes,
    useUserinfo: body.use_userinfo,
    claims,
    trustEmail: body.trust_email,
    groupMappings: body.group_mappings,
    provisioning: body.provisioning,
    mfaPolicy: body.mfa_policy,
    mfaAcceptedAmr: body.mfa_accepted_amr,
    mfaAcceptedAcr: body.mfa_accepted_acr,
    homeRealmDomains: body.home_realm_domains,
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as IdentityProviderChanges;
}

/** The service's refusals as problems. */
async function answered<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof IdentityProviderError)) throw error;
    switch (error.code) {
      case 'unknown_provider':
        throw new AdminProblem(404, 'identity_provider_not_found', 'There is no identity provider with this slug.');
      case 'duplicate_provider':
        throw new AdminProblem(409, 'duplicate_identity_provider', error.message);
      case 'domain_in_use':
        throw new AdminProblem(409, 'domain_in_use', error.message);
      case 'invalid_input':
        throw validationFailed([{ field: error.field ?? '(body)', message: error.message }]);
    }
  }
}

export function addIdentityProviderRoutes(router: AdminRouter, deps: { identityProviders: IdentityProviderService }): void {
  const { identityProviders } = deps;
  const scope = 'admin:identity-providers:write';

  router.add({
    method: 'GET',
    path: '/identity-providers',
    scope,
    summary: 'List the upstream identity providers by slug, with keyset paging (never their secrets)',
    operationId: 'listIdentityProviders',
    query: ProviderListQuery,
    responses: { 200: { description: 'One page of identity providers', body: IdentityProviderPageJson } },
    async handle({ query }) {
      const page = await answered(() => identityProviders.list({ limit: query.limit, ...(query.after !== undefined ? { after: query.after } : {}) }));
      return { status: 200, body: { items: page.items.map(identityProviderJson), next: page.next } };
    },
  });

  router.add({
    method: 'GET',
    path: '/identity-providers/{slug}',
    scope,
    summary: 'One identity provider (never its secrets)',
    operationId: 'getIdentityProvider',
    params: SLUG,
    responses: { 200: THE_PROVIDER },
    problems: { 404: NOT_FOUND },
    async handle({ params }) {
      return { status: 200, body: identityProviderJson(await answered(() => identityProviders.get(params.slug!))) };
    },
  });

  router.add({
    method: 'POST',
    path: '/identity-providers',
    scope,
    summary: 'Add an upstream identity provider, from a preset and the settings given; its secret is stored sealed and never shown',
    operationId: 'createIdentityProvider',
    body: NewProviderBody,
    responses: { 201: { description: 'The identity provider (never its secrets)', body: IdentityProviderJson, headers: { Location: 'The new identity provider' } } },
    problems: { 409: 'The slug is taken (`duplicate_identity_provider`), or a home-realm domain belongs to another provider (`domain_in_use`)' },
    async handle({ body, actor }) {
      const { claims, ...rest } = fromBody(body);
      const input: NewIdentityProvider = {
        ...(rest as Omit<NewIdentityProvider, 'slug' | 'clientId'>),
        ...(claims ? { claims: claims as Partial<ClaimMapping> } : {}),
        slug: body.slug,
        clientId: body.client_id,
        ...(body.preset !== undefined ? { preset: body.preset } : {}),
        ...(body.kind !== undefined ? { kind: body.kind } : {}),
        ...(body.tenant !== undefined ? { tenant: body.tenant } : {}),
      };
      const created = await answered(() => identityProviders.create(actor, input));
      return { status: 201, headers: { Location: `${ADMIN_BASE}/identity-providers/${encodeURIComponent(created.slug)}` }, body: identityProviderJson(created) };
    },
  });

  router.add({
    method: 'PATCH',
    path: '/identity-providers/{slug}',
    scope,
    summary: 'Change the settings given (null removes an optional one); a new client_secret or private_jwk replaces the stored one',
    operationId: 'updateIdentityProvider',
    params: SLUG,
    body: ProviderChangesBody,
    responses: { 200: THE_PROVIDER },
    problems: { 404: NOT_FOUND, 409: 'A home-realm domain belongs to another provider (`domain_in_use`)' },
    async handle({ params, body, actor }) {
      return { status: 200, body: identityProviderJson(await answered(() => identityProviders.update(actor, params.slug!, fromBody(body)))) };
    },
  });

  router.add({
    method: 'DELETE',
    path: '/identity-providers/{slug}',
    scope,
    summary: 'Remove the identity provider: its users can no longer sign in with it',
    operationId: 'removeIdentityProvider',
    params: SLUG,
    responses: { 204: { description: 'Removed' } },
    problems: { 404: NOT_FOUND },
    async handle({ params, actor }) {
      await answered(() => identityProviders.remove(actor, params.slug!));
      return { status: 204 };
    },
  });
}
