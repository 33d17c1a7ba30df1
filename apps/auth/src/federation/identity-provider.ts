/**
 * What an upstream identity provider is (the registry of federation/): the types the store, the
 * service, the admin API, authctl and the federated sign-in share. A provider record never holds a
 * secret; `clientSecretSet` and `privateKeySet` say whether one is stored, and the service's
 * credentials() opens them for the one caller that signs in with them.
 */
import { CodedError } from '../errors/coded-error.ts';

export type IdentityProviderKind = 'oidc' | 'oauth2';
export const IDP_KINDS: readonly IdentityProviderKind[] = ['oidc', 'oauth2'];

/** How Gatehouse authenticates to the upstream's token endpoint. */
export type IdpAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
export const IDP_AUTH_METHODS: readonly IdpAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** `just_in_time`: a first sign-in creates the account; `invited_only`: only linked accounts sign in. */
export type ProvisioningMode = 'just_in_time' | 'invited_only';
export const PROVISIONING_MODES: readonly ProvisioningMode[] = ['just_in_time', 'invited_only'];

/**
 * `trust_upstream`: a sign-in whose `amr` holds one of `mfaAcceptedAmr` or whose `acr` is one of
 * `mfaAcceptedAcr` counts as two factors; any other still asks for a Gatehouse factor.
 * `always_local`: a Gatehouse factor is always asked, whatever the upstream did.
 */
export type MfaPolicy = 'trust_upstream' | 'always_local';
export const MFA_POLICIES: readonly MfaPolicy[] = ['trust_upstream', 'always_local'];

export type IdpPresetName = 'google' | 'microsoft' | 'github' | 'oidc' | 'oauth2';
export const IDP_PRESETS: readonly IdpPresetName[] = ['google', 'microsoft', 'github', 'oidc', 'oauth2'];

/**
 * Which upstream claims (ID token, userinfo, or the oauth2 user endpoint's JSON members) give the
 * account's fields. `groups` absent: no group mapping.
 */
export interface ClaimMapping {
  /** The stable upstream id of the user (OIDC `sub`; GitHub's numeric `id`). */
  subject: string;
  username: string;
  email: string;
  /** The claim saying the e-mail is verified (OIDC `email_verified`); unused with an emails endpoint. */
  emailVerified: string;
  name: string;
  groups?: string;
}

/** One row of a provider's group table: users in the upstream group get the Gatehouse group. */
export interface GroupMapping {
  upstream: string;
  group: string;
}

/** Everything an operator configures, secrets aside. */
export interface IdentityProviderSettings {
  /** Stable key: in URLs (/login/federated/<slug>) and account links; never changes. */
  slug: string;
  /** The login button's text ("Continue with Acme SSO"). */
  displayName: string;
  kind: IdentityProviderKind;
  preset: IdpPresetName;
  enabled: boolean;
  /** oidc: the issuer whose discovery document (/.well-known/openid-configuration) is read. */
  issuer?: string;
  /**
   * oidc: the accepted ID-token `iss` when it differs by tenant (Entra's common and organizations
   * endpoints): `{tenantid}` stands for the token's `tid` claim. Absent: `iss` must equal `issuer`.
   */
  issuerTemplate?: string;
  /** With issuerTemplate: the tenant ids accepted; absent: any tenant. */
  allowedTenants?: string[];
  /** oauth2 only (oidc reads them from discovery). */
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  /** oauth2: the user endpoint (GitHub's /user), whose JSON members are the claims. */
  userinfoEndpoint?: string;
  /** oauth2: the e-mail addresses endpoint (GitHub's /user/emails): only a primary, verified address is taken. */
  emailsEndpoint?: string;
  clientId: string;
  tokenEndpointAuthMethod: IdpAuthMethod;
  scopes: string[];
  /** oidc: also read the userinfo endpoint after the token response (always true for oauth2). */
  useUserinfo: boolean;
  claims: ClaimMapping;
  /** The upstream's e-mail counts as verified without its verified claim (Keycloak's "Trust Email"). */
  trustEmail: boolean;
  groupMappings: GroupMapping[];
  provisioning: ProvisioningMode;
  mfaPolicy: MfaPolicy;
  mfaAcceptedAmr: string[];
  mfaAcceptedAcr: string[];
  /** Lower-cased e-mail domains whose users go straight to this provider; one provider per domain. */
  homeRealmDomains: string[];
}

/** A stored provider, as every read gives it: never a secret. */
export interface IdentityProvider extends IdentityProviderSettings {
  clientSecretSet: boolean;
  privateKeySet: boolean;
  createdAt: number;
  /** Last change (epoch ms), absent before the first. */
  updatedAt?: number;
}

/** A private JSON Web Key (RSA, EC or OKP, with its private part), for private_key_jwt. */
export type PrivateJwk = Record<string, unknown> & { kty: string; d: string };

/** The provider's credentials in clear (IdentityProviderService.credentials). */
export interface IdentityProviderCredentials {
  clientSecret?: string;
  privateJwk?: PrivateJwk;
}

export type IdentityProviderErrorCode = 'invalid_input' | 'duplicate_provider' | 'unknown_provider' | 'domain_in_use';

/** The admin API's and authctl's name of the input a refusal is about. */
export type IdentityProviderField =
  | 'slug'
  | 'display_name'
  | 'kind'
  | 'preset'
  | 'tenant'
  | 'enabled'
  | 'issuer'
  | 'issuer_template'
  | 'allowed_tenants'
  | 'authorization_endpoint'
  | 'token_endpoint'
  | 'userinfo_endpoint'
  | 'emails_endpoint'
  | 'client_id'
  | 'client_secret'
  | 'token_endpoint_auth_method'
  | 'private_jwk'
  | 'scopes'
  | 'use_userinfo'
  | 'claims'
  | 'trust_email'
  | 'group_mappings'
  | 'provisioning'
  | 'mfa_policy'
  | 'mfa_accepted_amr'
  | 'mfa_accepted_acr'
  | 'home_realm_domains'
  | 'after';

export class IdentityProviderError extends CodedError<IdentityProviderErrorCode> {
  readonly field: IdentityProviderField | undefined;
  constructor(code: IdentityProviderErrorCode, message: string, field?: IdentityProviderField) {
    super(code, message);
    this.field = field;
  }
}
