/**
 * /admin/v1/clients: operators' view and changes of OAuth clients, through the client service
 * (admin/client-admin.ts, shared with `authctl client`). Rules:
 * - every route needs `admin:clients:write`, reads included (a client's registration says where
 *   tokens may go); every change is audited by the service with the token's actor;
 * - `{id}` is the client id; an unknown one is 404 `client_not_found`;
 * - the list pages by client id (keyset: `limit` 1..200, default 50; `after` the opaque cursor of
 *   the previous page's `next`);
 * - reads never carry a secret; a secret in clear is in the answer to the creation of a
 *   confidential client and to a rotation, once (`client_secret`), never again;
 * - rotation: body `{ "grace_seconds": n }` (0..2592000, default 86400) or none; the answer says
 *   until when the replaced secret works (`previous_secret_expires_at`, null with 0);
 * - refusals: a taken id is 409 `duplicate_client`, rotating a public client 409 `public_client`;
 *   the client rules (ids, redirect URIs, grants, names, grace, response types, auth methods and
 *   their keys) are 400 `validation_failed` naming the field;
 * - a client registers `first_party`, `response_types` (code, id_token), its one
 *   `token_endpoint_auth_method` (private_key_jwt with exactly one of `jwks`, public keys only, and
 *   `jwks_uri`; it gets no secret), `dpop_bound_access_tokens` and `logo_uri` (shown on the consent
 *   page; PATCH with null removes it), with the token-exchange grant, `token_exchange` (RFC 8693:
 *   the audiences and scopes it may exchange for; PATCH with null removes it), and
 *   `backchannel_logout_uri` and `backchannel_logout_session_required` (Back-Channel Logout 1.0;
 *   PATCH with a null URI removes both) (client-store.ts); reads show them all (`jwks`, `jwks_uri`,
 *   `logo_uri`, `token_exchange` and `backchannel_logout_uri` null when absent), in the shape of
 *   admin/json/client-json.ts, as `authctl client --json` prints it.
 */
import { z } from 'zod';
import type { ClientAdmin } from '../client-admin.ts';
import { CLIENT_AUTH_METHODS, CLIENT_GRANT_TYPES, CLIENT_RESPONSE_TYPES, ClientRegistryError, type ClientChanges, type ClientJwks } from '../../clients/client-store.ts';
import { CLIENT_MEMBER_TEXT, ClientJson, clientJson, ClientPageJson, ClientWithSecretJson, clientWithSecretJson } from '../json/client-json.ts';
import { ADMIN_BASE, type AdminRouter } from './admin-router.ts';
import { AdminProblem, validationFailed } from './problem.ts';

/**
 * Field shapes here; the client rules themselves are the store's (client-store.ts), documented as
 * metadata only (formats, patterns, the grant names): a refused value is the store's
 * `validation_failed` naming the field.
 */
const Uris = z.array(z.string().max(2048).meta({ format: 'uri' })).max(32);
const Grants = z
  .array(z.string().meta({ enum: [...CLIENT_GRANT_TYPES] }))
  .max(8)
  .meta({ minItems: 1 });
const ResponseTypes = z
  .array(z.enum(CLIENT_RESPONSE_TYPES))
  .min(1)
  .max(2)
  .meta({
    description: '`code` needs the authorization_code grant; `id_token` (an ID token at the authorization endpoint, no access token) comes with the implicit grant. Default: `code` with authorization_code',
  });
const AuthMethod = z.enum(CLIENT_AUTH_METHODS).meta({ description: 'The only method the client may authenticate with; private_key_jwt needs exactly one of `jwks` and `jwks_uri`, and has no secret' });
/** A JWK Set's outer shape; what its keys hold is the store's rule (public keys only). */
const Jwks = z.looseObject({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ description: CLIENT_MEMBER_TEXT.jwks });
const JwksUri = z.string().max(2048).meta({ description: CLIENT_MEMBER_TEXT.jwks_uri });
/** Its length and form are the store's rules (client-store.ts): one message for both clients of the store. */
const LogoUri = z.string().meta({ format: 'uri', maxLength: 2048, description: CLIENT_MEMBER_TEXT.logo_uri });
const BackchannelLogoutUri = z.string().meta({ format: 'uri', maxLength: 2048, description: CLIENT_MEMBER_TEXT.backchannel_logout_uri });
const BackchannelSession = z.boolean().meta({ description: CLIENT_MEMBER_TEXT.backchannel_logout_session_required });
const Name = z.string().meta({ minLength: 1, maxLength: 128 });
const FirstParty = z.boolean().meta({ description: CLIENT_MEMBER_TEXT.first_party });
const Dpop = z.boolean().meta({ description: CLIENT_MEMBER_TEXT.dpop_bound_access_tokens });
/** Its sizes and forms are the store's rules (clients/token-exchange-policy.ts). */
const TokenExchange = z
  .strictObject({
    audiences: z.array(z.string().meta({ maxLength: 2048 })).max(20).meta({ minItems: 1 }),
    scopes: z.array(z.string().meta({ maxLength: 128 })).max(100).meta({ minItems: 1 }),
  })
  .meta({ description: CLIENT_MEMBER_TEXT.token_exchange });

const NewClientBody = z.strictObject({
  client_id: z.string().meta({ pattern: '^[a-zA-Z0-9._-]{1,128}$' }),
  redirect_uris: Uris.default([]).meta({ description: 'Required for the authorization_code grant: https, or http for a confidential client (for a public client only on localhost / 127.0.0.1); no fragment or credentials' }),
  post_logout_redirect_uris: Uris.default([]),
  public: z.boolean().default(false).meta({ description: 'A public client has no secret, authenticates with `none` (PKCE) and cannot use client_credentials' }),
  token_endpoint_auth_method: AuthMethod.optional().meta({ default: 'client_secret_basic' }),
  jwks: Jwks.optional(),
  jwks_uri: JwksUri.optional(),
  grant_types: Grants.optional().meta({ default: ['authorization_code', 'refresh_token'] }),
  response_types: ResponseTypes.optional(),
  name: Name.optional().meta({ description: 'Defaults to the client id' }),
  first_party: FirstParty.optional().meta({ default: false }),
  dpop_bound_access_tokens: Dpop.optional().meta({ default: false }),
  logo_uri: LogoUri.optional(),
  token_exchange: TokenExchange.optional(),
  backchannel_logout_uri: BackchannelLogoutUri.optional(),
  backchannel_logout_session_required: BackchannelSession.optional().meta({ default: false }),
  id_token_field: z.string().optional().meta({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$', description: 'An extra token-response member repeating the ID token (e.g. JWT_token)' }),
});

const CHANGEABLE = [
  'redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'name', 'response_types', 'token_endpoint_auth_method',
  'jwks', 'jwks_uri', 'first_party', 'dpop_bound_access_tokens', 'logo_uri', 'token_exchange', 'backchannel_logout_uri',
  'backchannel_logout_session_required',
] as const;

const ClientChangesBody = z
  .strictObject({
    redirect_uris: Uris.optional(),
    post_logout_redirect_uris: Uris.optional(),
    grant_types: Grants.optional(),
    name: Name.optional(),
    response_types: ResponseTypes.optional(),
    token_endpoint_auth_method: AuthMethod.optional(),
    jwks: Jwks.optional(),
    jwks_uri: JwksUri.optional(),
    first_party: FirstParty.optional(),
    dpop_bound_access_tokens: Dpop.optional(),
    logo_uri: LogoUri.nullable().optional().meta({ description: `${CLIENT_MEMBER_TEXT.logo_uri}; null removes it` }),
    token_exchange: TokenExchange.nullable().optional().meta({ description: `${CLIENT_MEMBER_TEXT.token_exchange}; null removes it (with the grant)` }),
    backchannel_logout_uri: BackchannelLogoutUri.nullable().optional().meta({ description: `${CLIENT_MEMBER_TEXT.backchannel_logout_uri}; null removes it and the session requirement` }),
    backchannel_logout_session_required: BackchannelSession.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: `name at least one of ${CHANGEABLE.join(', ')}` })
  .meta({ minProperties: 1 });

const RotateBody = z
  .strictObject({
    grace_seconds: z.number().int().min(0).max(2_592_000).optional().meta({ default: 86_400, description: 'How long the replaced secret keeps working; 0 ends it at once' }),
  })
  .optional();

const ClientListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z.string().min(1).max(512).optional().meta({ description: 'The `next` cursor of the previous page' }),
});

const CLIENT_ID = { id: 'The client id' };
const CLIENT_NOT_FOUND = 'No client with this id (`client_not_found`)';
const THE_CLIENT = { description: 'The client (never its secret)', body: ClientJson };

/** The service's refusals as problems. */
async function answered<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ClientRegistryError)) throw error;
    switch (error.code) {
      case 'unknown_client':
        throw new AdminProblem(404, 'client_not_found', 'There is no client with this id.');
      case 'duplicate_client':
        throw new AdminProblem(409, 'duplicate_client', error.message);
      case 'public_client':
        throw new AdminProblem(409, 'public_client', error.message);
      case 'invalid_redirect_uri':
      case 'invalid_input':
        throw validationFailed([{ field: error.field ?? '(body)', message: error.message }]);
    }
  }
}

export function addClientRoutes(router: AdminRouter, deps: { clients: ClientAdmin }): void {
  const { clients } = deps;
  const scope = 'admin:clients:write';

  router.add({
    method: 'GET',
    path: '/clients',
    scope,
    summary: 'List clients by client id, with keyset paging (never their secrets)',
    operationId: 'listClients',
    query: ClientListQuery,
    responses: { 200: { description: 'One page of clients', body: ClientPageJson } },
    async handle({ query }) {
      const page = await answered(() => clients.list({ limit: query.limit, ...(query.after !== undefined ? { after: query.after } : {}) }));
      return { status: 200, body: { items: page.items.map(clientJson), next: page.next } };
    },
  });

  router.add({
    method: 'GET',
    path: '/clients/{id}',
    scope,
    summary: 'One client (never its secret)',
    operationId: 'getClient',
    params: CLIENT_ID,
    responses: { 200: THE_CLIENT },
    problems: { 404: CLIENT_NOT_FOUND },
    async handle({ params }) {
      return { status: 200, body: clientJson(await answered(() => clients.get(params.id!))) };
    },
  });

  router.add({
    method: 'POST',
    path: '/clients',
    scope,
    summary: 'Register a client; a confidential client\'s secret is in this answer only',
    operationId: 'createClient',
    body: NewClientBody,
    responses: { 201: { description: 'The client, with its secret (confidential clients) shown this once', body: ClientWithSecretJson, headers: { Location: 'The new client' } } },
    problems: { 409: 'The client id is taken (`duplicate_client`)' },
    async handle({ body, actor }) {
      const created = await answered(
        () =>
          clients.create(actor, {
            clientId: body.client_id,
            redirectUris: body.redirect_uris,
            postLogoutRedirectUris: body.post_logout_redirect_uris,
            public: body.public,
            ...(body.token_endpoint_auth_method !== undefined ? { authMethod: body.token_endpoint_auth_method } : {}),
            ...(body.jwks !== undefined ? { jwks: body.jwks as ClientJwks } : {}),
            ...(body.jwks_uri !== undefined ? { jwksUri: body.jwks_uri } : {}),
            ...(body.grant_types !== undefined ? { grantTypes: body.grant_types } : {}),
            ...(body.response_types !== undefined ? { responseTypes: body.response_types } : {}),
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.first_party !== undefined ? { firstParty: body.first_party } : {}),
            ...(body.dpop_bound_access_tokens !== undefined ? { dpopBoundAccessTokens: body.dpop_bound_access_tokens } : {}),
            ...(body.logo_uri !== undefined ? { logoUri: body.logo_uri } : {}),
            ...(body.token_exchange !== undefined ? { tokenExchange: body.token_exchange } : {}),
            ...(body.backchannel_logout_uri !== undefined ? { backchannelLogoutUri: body.backchannel_logout_uri } : {}),
            ...(body.backchannel_logout_session_required !== undefined ? { backchannelLogoutSessionRequired: body.backchannel_logout_session_required } : {}),
            ...(body.id_token_field !== undefined ? { idTokenField: body.id_token_field } : {}),
          }),
      );
      return {
        status: 201,
        headers: { Location: `${ADMIN_BASE}/clients/${encodeURIComponent(created.client.clientId)}` },
        body: clientWithSecretJson(created.client, created.clientSecret),
      };
    },
  });

  router.add({
    method: 'PATCH',
    path: '/clients/{id}',
    scope,
    summary: 'Change the registration; each field given replaces the stored one (new keys replace the old, another auth method drops them)',
    operationId: 'updateClient',
    params: CLIENT_ID,
    body: ClientChangesBody,
    responses: { 200: THE_CLIENT },
    problems: { 404: CLIENT_NOT_FOUND },
    async handle({ params, body, actor }) {
      const changes: ClientChanges = {
        ...(body.redirect_uris !== undefined ? { redirectUris: body.redirect_uris } : {}),
        ...(body.post_logout_redirect_uris !== undefined ? { postLogoutRedirectUris: body.post_logout_redirect_uris } : {}),
        ...(body.grant_types !== undefined ? { grantTypes: body.grant_types } : {}),
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.response_types !== undefined ? { responseTypes: body.response_types } : {}),
        ...(body.token_endpoint_auth_method !== undefined ? { authMethod: body.token_endpoint_auth_method } : {}),
        ...(body.jwks !== undefined ? { jwks: body.jwks as ClientJwks } : {}),
        ...(body.jwks_uri !== undefined ? { jwksUri: body.jwks_uri } : {}),
        ...(body.first_party !== undefined ? { firstParty: body.first_party } : {}),
        ...(body.dpop_bound_access_tokens !== undefined ? { dpopBoundAccessTokens: body.dpop_bound_access_tokens } : {}),
        ...(body.logo_uri !== undefined ? { logoUri: body.logo_uri } : {}),
        ...(body.token_exchange !== undefined ? { tokenExchange: body.token_exchange } : {}),
        ...(body.backchannel_logout_uri !== undefined ? { backchannelLogoutUri: body.backchannel_logout_uri } : {}),
        ...(body.backchannel_logout_session_required !== undefined ? { backchannelLogoutSessionRequired: body.backchannel_logout_session_required } : {}),
      };
      return { status: 200, body: clientJson(await answered(() => clients.update(actor, params.id!, changes))) };
    },
  });

  router.add({
    method: 'POST',
    path: '/clients/{id}/secret/rotate',
    scope,
    summary: 'A new secret, in this answer only; the replaced one keeps working for the grace period (a rotation during a grace period ends the older secret at once)',
    operationId: 'rotateClientSecret',
    params: CLIENT_ID,
    body: RotateBody,
    responses: { 200: { description: 'The client with its new secret; `previous_secret_expires_at` says when the old one stops (null with grace 0)', body: ClientWithSecretJson } },
    problems: { 404: CLIENT_NOT_FOUND, 409: 'A public client has no secret (`public_client`)' },
    async handle({ params, body, actor }) {
      const grace = body?.grace_seconds;
      const rotated = await answered(() => clients.rotateSecret(actor, params.id!, grace === undefined ? {} : { graceSeconds: grace }));
      return { status: 200, body: clientWithSecretJson(rotated.client, rotated.clientSecret) };
    },
  });

  router.add({
    method: 'DELETE',
    path: '/clients/{id}',
    scope,
    summary: 'Remove the client: its tokens stop being active and its secrets stop working at once',
    operationId: 'removeClient',
    params: CLIENT_ID,
    responses: { 204: { description: 'Removed' } },
    problems: { 404: CLIENT_NOT_FOUND },
    async handle({ params, actor }) {
      await answered(() => clients.remove(actor, params.id!));
      return { status: 204 };
    },
  });
}
