/**
 * What the federated sign-in reads of an identity provider: the registry's record
 * (identity-provider.ts) narrowed to the fields the flow uses. Its credentials are opened only for
 * the request that sends them.
 */
import type { JWK } from 'jose';

export interface UpstreamProvider {
  slug: string;
  displayName: string;
  kind: 'oidc' | 'oauth2';
  issuer?: string;
  issuerTemplate?: string;
  allowedTenants?: string[];
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  emailsEndpoint?: string;
  clientId: string;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  scopes: string[];
  useUserinfo: boolean;
  claims: { subject: string; username: string; email: string; emailVerified: string; name: string; groups?: string };
  trustEmail: boolean;
  groupMappings: { upstream: string; group: string }[];
  provisioning: 'just_in_time' | 'invited_only';
  mfaPolicy: 'trust_upstream' | 'always_local';
  mfaAcceptedAmr: string[];
  mfaAcceptedAcr: string[];
  homeRealmDomains: string[];
}

export interface UpstreamCredentials {
  clientSecret?: string;
  privateJwk?: JWK | Record<string, unknown>;
}
