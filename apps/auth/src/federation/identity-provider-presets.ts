/**
 * Presets: the settings a new provider starts from, before the operator's own. Rules:
 * - a preset applies once, when the provider is created; later updates change fields, never the preset;
 * - `oidc` (the default) needs an issuer; `oauth2` needs its authorization, token and user endpoints
 *   and the claim naming the user's stable id;
 * - `google`: issuer https://accounts.google.com, the e-mail as username (Google has no username);
 * - `microsoft` (Entra ID): `tenant` is a tenant id (GUID), a verified domain, or `organizations`
 *   (the default), `common` or `consumers`. A tenant id fixes the issuer; anything else reads
 *   discovery at that tenant and accepts each tenant's own `iss`
 *   (https://login.microsoftonline.com/{tenantid}/v2.0, `{tenantid}` being the token's `tid`),
 *   which `allowedTenants` may narrow. Entra reports MFA in `amr` (`mfa`), which the preset trusts;
 * - `github`: OAuth 2.0 without OIDC: GitHub's authorize, token, /user and /user/emails endpoints,
 *   the numeric `id` as subject and `login` as username; the e-mail is the primary address the
 *   emails endpoint marks verified. GitHub says nothing about MFA: a Gatehouse factor is asked.
 */
import type { ClaimMapping, IdentityProviderKind, IdentityProviderSettings, IdpPresetName } from './identity-provider.ts';

/** What a preset fills in: every setting but the operator's own identifiers. */
export type PresetSettings = Omit<IdentityProviderSettings, 'slug' | 'displayName' | 'clientId' | 'enabled' | 'homeRealmDomains' | 'groupMappings' | 'provisioning'>;

export const OIDC_CLAIMS: ClaimMapping = { subject: 'sub', username: 'preferred_username', email: 'email', emailVerified: 'email_verified', name: 'name' };

export const MICROSOFT_ISSUER_TEMPLATE = 'https://login.microsoftonline.com/{tenantid}/v2.0';
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TENANT_NAME = /^[a-z0-9](?:[a-z0-9.-]{0,253}[a-z0-9])?$/i;

export const GITHUB_ENDPOINTS = {
  authorizationEndpoint: 'https://github.com/login/oauth/authorize',
  tokenEndpoint: 'https://github.com/login/oauth/access_token',
  userinfoEndpoint: 'https://api.github.com/user',
  emailsEndpoint: 'https://api.github.com/user/emails',
} as const;

const base = (): Pick<PresetSettings, 'tokenEndpointAuthMethod' | 'useUserinfo' | 'trustEmail' | 'mfaPolicy' | 'mfaAcceptedAmr' | 'mfaAcceptedAcr'> => ({
  tokenEndpointAuthMethod: 'client_secret_basic',
  useUserinfo: false,
  trustEmail: false,
  mfaPolicy: 'always_local',
  mfaAcceptedAmr: [],
  mfaAcceptedAcr: [],
});

export const PRESET_KIND: Readonly<Record<IdpPresetName, IdentityProviderKind>> = { google: 'oidc', microsoft: 'oidc', github: 'oauth2', oidc: 'oidc', oauth2: 'oauth2' };

/** True for a tenant the microsoft preset accepts. */
export const isMicrosoftTenant = (tenant: string): boolean => TENANT_ID.test(tenant) || TENANT_NAME.test(tenant);

/** The settings of a preset; `tenant` only for microsoft (checked with isMicrosoftTenant first). */
export function presetSettings(name: IdpPresetName, tenant?: string): PresetSettings {
  switch (name) {
    case 'google':
      return { ...base(), kind: 'oidc', preset: name, issuer: 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'], claims: { ...OIDC_CLAIMS, username: 'email' } };
    case 'microsoft': {
      const t = (tenant ?? 'organizations').toLowerCase();
      const issuer = `https://login.microsoftonline.com/${t}/v2.0`;
      return {
        ...base(),
        kind: 'oidc',
        preset: name,
        issuer,
        ...(TENANT_ID.test(t) ? {} : { issuerTemplate: MICROSOFT_ISSUER_TEMPLATE }),
        scopes: ['openid', 'email', 'profile'],
        claims: { ...OIDC_CLAIMS, groups: 'groups' },
        mfaPolicy: 'trust_upstream',
        mfaAcceptedAmr: ['mfa'],
      };
    }
    case 'github':
      return {
        ...base(),
        kind: 'oauth2',
        preset: name,
        ...GITHUB_ENDPOINTS,
        tokenEndpointAuthMethod: 'client_secret_post',
        scopes: ['read:user', 'user:email'],
        useUserinfo: true,
        claims: { subject: 'id', username: 'login', email: 'email', emailVerified: 'email_verified', name: 'name' },
      };
    case 'oauth2':
      return { ...base(), kind: 'oauth2', preset: name, scopes: [], useUserinfo: true, claims: { ...OIDC_CLAIMS } };
    case 'oidc':
      return { ...base(), kind: 'oidc', preset: name, scopes: ['openid', 'email', 'profile'], claims: { ...OIDC_CLAIMS } };
  }
}
