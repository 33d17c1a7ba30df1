/**
 * The JSON shape of an upstream identity provider: the admin API's bodies
 * (/admin/v1/identity-providers) and `authctl idp ... --json` print exactly these. Rules:
 * - never a secret: `client_secret_set` and `private_key_set` say whether one is stored;
 * - every member is present: settings not set are null (`issuer` of an oauth2 provider, its
 *   endpoints of an oidc one, `claims.groups` without group mapping), instants not set are null;
 * - the schemas are the OpenAPI document's `IdentityProvider` and `IdentityProviderPage`
 *   (admin/http/openapi.ts).
 */
import { z } from 'zod';
import { IDP_AUTH_METHODS, IDP_KINDS, IDP_PRESETS, MFA_POLICIES, PROVISIONING_MODES, type IdentityProvider } from '../../federation/identity-provider.ts';
import { IsoTime, isoTime } from './json-time.ts';
import { pageJson } from './page-json.ts';

/** Descriptions shared by the shown provider and the admin API's request bodies. */
export const IDP_MEMBER_TEXT = {
  slug: 'Stable id, in the sign-in URL /login/federated/<slug>: 1-64 lower-case letters, digits or "-"',
  display_name: 'Shown on the login page\'s button: "Continue with <display_name>"',
  issuer: 'oidc: the issuer whose discovery document is read',
  issuer_template: 'oidc: the accepted ID-token `iss` when it differs by tenant; `{tenantid}` stands for the token\'s `tid` claim (Entra ID common / organizations)',
  allowed_tenants: 'With issuer_template: the tenant ids accepted (null: any)',
  userinfo_endpoint: 'oauth2: the user endpoint (GitHub\'s /user), whose JSON members are the claims',
  emails_endpoint: 'oauth2: the email addresses endpoint (GitHub\'s /user/emails); only a primary, verified address is taken',
  token_endpoint_auth_method: 'How Gatehouse authenticates to the upstream\'s token endpoint; the secret methods need client_secret, private_key_jwt a private_jwk',
  use_userinfo: 'oidc: also read the userinfo endpoint (always true for oauth2)',
  claims: 'Which upstream claims give the account\'s fields; groups null: no group mapping',
  trust_email: 'The upstream\'s email counts as verified even without its verified claim',
  group_mappings: 'Users in the upstream group get the Gatehouse group; other upstream groups are ignored',
  provisioning: 'just_in_time: a first sign-in creates the account; invited_only: only accounts already linked sign in',
  mfa_policy: 'trust_upstream: the upstream\'s amr / acr (one of the accepted values) stands for a second factor, else a Gatehouse factor is asked; always_local: a Gatehouse factor is always asked',
  home_realm_domains: 'Email domains whose users go straight to this provider from the login page; a domain belongs to one provider',
} as const;

const ClaimsJson = z
  .object({
    subject: z.string(),
    username: z.string(),
    email: z.string(),
    email_verified: z.string(),
    name: z.string(),
    groups: z.string().nullable(),
  })
  .meta({ description: IDP_MEMBER_TEXT.claims });

export const IdentityProviderJson = z.object({
  slug: z.string().meta({ description: IDP_MEMBER_TEXT.slug }),
  display_name: z.string().meta({ description: IDP_MEMBER_TEXT.display_name }),
  kind: z.enum(IDP_KINDS),
  preset: z.enum(IDP_PRESETS).meta({ description: 'The preset the provider was made from' }),
  enabled: z.boolean(),
  issuer: z.string().nullable().meta({ description: IDP_MEMBER_TEXT.issuer }),
  issuer_template: z.string().nullable().meta({ description: IDP_MEMBER_TEXT.issuer_template }),
  allowed_tenants: z.array(z.string()).nullable().meta({ description: IDP_MEMBER_TEXT.allowed_tenants }),
  authorization_endpoint: z.string().nullable(),
  token_endpoint: z.string().nullable(),
  userinfo_endpoint: z.string().nullable().meta({ description: IDP_MEMBER_TEXT.userinfo_endpoint }),
  emails_endpoint: z.string().nullable().meta({ description: IDP_MEMBER_TEXT.emails_endpoint }),
  client_id: z.string(),
  client_secret_set: z.boolean().meta({ description: 'A client secret is stored (sealed; never shown)' }),
  token_endpoint_auth_method: z.enum(IDP_AUTH_METHODS).meta({ description: IDP_MEMBER_TEXT.token_endpoint_auth_method }),
  private_key_set: z.boolean().meta({ description: 'private_key_jwt: a private key is stored (sealed; never shown)' }),
  scopes: z.array(z.string()),
  use_userinfo: z.boolean().meta({ description: IDP_MEMBER_TEXT.use_userinfo }),
  claims: ClaimsJson,
  trust_email: z.boolean().meta({ description: IDP_MEMBER_TEXT.trust_email }),
  group_mappings: z.array(z.object({ upstream: z.string(), group: z.string() })).meta({ description: IDP_MEMBER_TEXT.group_mappings }),
  provisioning: z.enum(PROVISIONING_MODES).meta({ description: IDP_MEMBER_TEXT.provisioning }),
  mfa_policy: z.enum(MFA_POLICIES).meta({ description: IDP_MEMBER_TEXT.mfa_policy }),
  mfa_accepted_amr: z.array(z.string()),
  mfa_accepted_acr: z.array(z.string()),
  home_realm_domains: z.array(z.string()).meta({ description: IDP_MEMBER_TEXT.home_realm_domains }),
  created_at: IsoTime,
  updated_at: IsoTime.nullable(),
});
export type IdentityProviderJson = z.output<typeof IdentityProviderJson>;

export const IdentityProviderPageJson = pageJson(IdentityProviderJson);

export function identityProviderJson(p: IdentityProvider): IdentityProviderJson {
  return {
    slug: p.slug,
    display_name: p.displayName,
    kind: p.kind,
    preset: p.preset,
    enabled: p.enabled,
    issuer: p.issuer ?? null,
    issuer_template: p.issuerTemplate ?? null,
    allowed_tenants: p.allowedTenants ?? null,
    authorization_endpoint: p.authorizationEndpoint ?? null,
    token_endpoint: p.tokenEndpoint ?? null,
    userinfo_endpoint: p.userinfoEndpoint ?? null,
    emails_endpoint: p.emailsEndpoint ?? null,
    client_id: p.clientId,
    client_secret_set: p.clientSecretSet,
    token_endpoint_auth_method: p.tokenEndpointAuthMethod,
    private_key_set: p.privateKeySet,
    scopes: p.scopes,
    use_userinfo: p.useUserinfo,
    claims: { subject: p.claims.subject, username: p.claims.username, email: p.claims.email, email_verified: p.claims.emailVerified, name: p.claims.name, groups: p.claims.groups ?? null },
    trust_email: p.trustEmail,
    group_mappings: p.groupMappings.map(({ upstream, group }) => ({ upstream, group })),
    provisioning: p.provisioning,
    mfa_policy: p.mfaPolicy,
    mfa_accepted_amr: p.mfaAcceptedAmr,
    mfa_accepted_acr: p.mfaAcceptedAcr,
    home_realm_domains: p.homeRealmDomains,
    created_at: isoTime(p.createdAt),
    updated_at: isoTime(p.updatedAt),
  };
}
