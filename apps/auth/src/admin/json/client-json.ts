/**
 * The JSON shape of an OAuth client: the admin API's bodies (/admin/v1/clients) and `authctl
 * client ... --json` print exactly these. Rules:
 * - never a secret, except `client_secret` in the answer that creates a confidential client or
 *   rotates its secret, once;
 * - every member is present: `jwks`, `jwks_uri`, `logo_uri`, `token_exchange`, `backchannel_logout_uri`,
 *   `id_token_field` and the instants not set are null; `response_types` is the effective list (responseTypesOf);
 * - the schemas are the OpenAPI document's `Client`, `ClientWithSecret` and `ClientPage`
 *   (admin/http/openapi.ts).
 */
import { z } from 'zod';
import type { ClientView } from '../client-admin.ts';
import { CLIENT_AUTH_METHODS, CLIENT_RESPONSE_TYPES, responseTypesOf } from '../../clients/client-store.ts';
import { IsoTime, isoTime } from './json-time.ts';
import { pageJson } from './page-json.ts';

/** Descriptions of the members the registration and the shown client share. */
export const CLIENT_MEMBER_TEXT = {
  jwks: 'private_key_jwt: a JWK Set of public RSA, EC or OKP keys (a private or symmetric member is refused)',
  jwks_uri: 'private_key_jwt: where the client serves its JWK Set; https, or http on localhost / 127.0.0.1',
  first_party: 'The operator\'s own client: no consent page unless the request sends prompt=consent',
  dpop_bound_access_tokens: 'RFC 9449: every access token of the client must be DPoP-bound',
  logo_uri: 'RFC 7591: the client\'s logo, shown beside its name on the consent page; https, or http for a confidential client (for a public client only on localhost / 127.0.0.1); no fragment or credentials',
  token_exchange:
    'RFC 8693: with the grant urn:ietf:params:oauth:grant-type:token-exchange (and only with it), the audiences (resource servers) and scopes the client may exchange a user\'s access token for; never more than the subject token had',
  backchannel_logout_uri: 'OpenID Connect Back-Channel Logout 1.0: where the server posts a logout token when a session of the client ends; https, or http for a confidential client (for a public client only on localhost / 127.0.0.1); no fragment or credentials',
  backchannel_logout_session_required: 'Back-Channel Logout 1.0: every logout token carries `sid` (needs backchannel_logout_uri)',
} as const;

/** The token-exchange policy (clients/token-exchange-policy.ts). */
const TokenExchangeJson = z
  .object({
    audiences: z.array(z.string().meta({ maxLength: 2048 })).meta({ minItems: 1, maxItems: 20 }),
    scopes: z.array(z.string().meta({ maxLength: 128 })).meta({ minItems: 1, maxItems: 100 }),
  })
  .meta({ description: CLIENT_MEMBER_TEXT.token_exchange });

export const ClientJson = z.object({
  client_id: z.string(),
  name: z.string(),
  public: z.boolean(),
  token_endpoint_auth_method: z.enum([...CLIENT_AUTH_METHODS, 'none']),
  grant_types: z.array(z.string()),
  response_types: z.array(z.enum(CLIENT_RESPONSE_TYPES)),
  redirect_uris: z.array(z.string()),
  post_logout_redirect_uris: z.array(z.string()),
  first_party: z.boolean().meta({ description: CLIENT_MEMBER_TEXT.first_party }),
  dpop_bound_access_tokens: z.boolean().meta({ description: CLIENT_MEMBER_TEXT.dpop_bound_access_tokens }),
  jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).nullable().meta({ description: CLIENT_MEMBER_TEXT.jwks }),
  jwks_uri: z.string().nullable().meta({ description: CLIENT_MEMBER_TEXT.jwks_uri }),
  logo_uri: z.string().nullable().meta({ description: CLIENT_MEMBER_TEXT.logo_uri }),
  token_exchange: TokenExchangeJson.nullable(),
  backchannel_logout_uri: z.string().nullable().meta({ description: CLIENT_MEMBER_TEXT.backchannel_logout_uri }),
  backchannel_logout_session_required: z.boolean().meta({ description: CLIENT_MEMBER_TEXT.backchannel_logout_session_required }),
  id_token_field: z.string().nullable(),
  created_at: IsoTime,
  updated_at: IsoTime.nullable(),
  secret_rotated_at: IsoTime.nullable(),
  previous_secret_expires_at: IsoTime.nullable().meta({ description: 'While a rotation\'s grace period runs: when the replaced secret stops working' }),
});
export type ClientJson = z.output<typeof ClientJson>;

export const ClientWithSecretJson = ClientJson.extend({
  client_secret: z.string().optional().meta({ description: 'Shown once; absent for a public or a private_key_jwt client' }),
});
export type ClientWithSecretJson = z.output<typeof ClientWithSecretJson>;

export const ClientPageJson = pageJson(ClientJson);

export function clientJson(c: ClientView): ClientJson {
  return {
    client_id: c.clientId,
    name: c.name,
    public: c.public,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    grant_types: c.grantTypes,
    response_types: responseTypesOf(c),
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris,
    first_party: c.firstParty === true,
    dpop_bound_access_tokens: c.dpopBoundAccessTokens === true,
    jwks: c.jwks ?? null,
    jwks_uri: c.jwksUri ?? null,
    logo_uri: c.logoUri ?? null,
    token_exchange: c.tokenExchange ? { audiences: c.tokenExchange.audiences, scopes: c.tokenExchange.scopes } : null,
    backchannel_logout_uri: c.backchannelLogoutUri ?? null,
    backchannel_logout_session_required: c.backchannelLogoutSessionRequired === true,
    id_token_field: c.idTokenField ?? null,
    created_at: isoTime(c.createdAt),
    updated_at: isoTime(c.updatedAt),
    secret_rotated_at: isoTime(c.secretRotatedAt),
    previous_secret_expires_at: isoTime(c.previousSecretExpiresAt),
  };
}

/** The client with the secret in clear of its creation or rotation (none for a client without one). */
export function clientWithSecretJson(c: ClientView, clientSecret: string | undefined): ClientWithSecretJson {
  return { ...clientJson(c), ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}) };
}
