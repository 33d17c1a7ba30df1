/**
 * What the federated sign-in reads of an identity provider: the registry's record
 * (identity-provider.ts) narrowed to the fields the flow uses. Its credentials are opened only for
 * the request that sends them.
 */
import type { IdentityProvider, IdentityProviderCredentials } from './identity-provider.ts';

export type UpstreamProvider = Pick<
  IdentityProvider,
  | 'slug'
  | 'displayName'
  | 'kind'
  | 'issuer'
  | 'issuerTemplate'
  | 'allowedTenants'
  | 'authorizationEndpoint'
  | 'tokenEndpoint'
  | 'userinfoEndpoint'
  | 'emailsEndpoint'
  | 'clientId'
  | 'tokenEndpointAuthMethod'
  | 'scopes'
  | 'useUserinfo'
  | 'claims'
  | 'trustEmail'
  | 'groupMappings'
  | 'provisioning'
  | 'mfaPolicy'
  | 'mfaAcceptedAmr'
  | 'mfaAcceptedAcr'
  | 'homeRealmDomains'
>;

export type UpstreamCredentials = IdentityProviderCredentials;
