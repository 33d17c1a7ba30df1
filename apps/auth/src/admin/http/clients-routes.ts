/**
 * /admin/v1/clients: operators' view and changes of OAuth clients, through the client service
 * (clients/client-admin.ts, shared with `authctl client`). Rules:
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
 *   the client rules (ids, redirect URIs, grants, names, grace) are 400 `validation_failed`
 *   naming the field.
 */
import { z } from 'zod';
import type { ClientAdmin, ClientView } from '../../clients/client-admin.ts';
import { ClientRegistryError } from '../../clients/client-store.ts';
import { ADMIN_BASE, type AdminRouter } from './admin-router.ts';
import { AdminProblem, validationFailed } from './problem.ts';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** A client as the admin API shows it (schema `Client` in openapi.ts): never a secret. */
function clientJson(c: ClientView) {
  return {
    client_id: c.clientId,
    name: c.name,
    public: c.public,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    grant_types: c.grantTypes,
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris,
    id_token_field: c.idTokenField ?? null,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    secret_rotated_at: iso(c.secretRotatedAt),
    previous_secret_expires_at: iso(c.previousSecretExpiresAt),
  };
}

const Uris = z.array(z.string().max(2048)).max(32);
const Grants = z.array(z.string()).max(8);

/** Field shapes here; the client rules themselves are the store's (client-store.ts). */
const NewClientBody = z.strictObject({
  client_id: z.string(),
  redirect_uris: Uris.default([]),
  post_logout_redirect_uris: Uris.default([]),
  public: z.boolean().default(false),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post']).optional(),
  grant_types: Grants.optional(),
  name: z.string().optional(),
  id_token_field: z.string().optional(),
});

const ClientChangesBody = z
  .strictObject({ redirect_uris: Uris.optional(), post_logout_redirect_uris: Uris.optional(), grant_types: Grants.optional(), name: z.string().optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'name at least one of redirect_uris, post_logout_redirect_uris, grant_types, name' });

const RotateBody = z.strictObject({ grace_seconds: z.number().int().min(0).max(2_592_000).optional() }).optional();

const ClientListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z.string().min(1).max(512).optional(),
});

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
    query: ClientListQuery,
    async handle({ query }) {
      const page = await answered(() => clients.list({ limit: query.limit, ...(query.after !== undefined ? { after: query.after } : {}) }));
      return { status: 200, body: { items: page.items.map(clientJson), next: page.next } };
    },
  });

  router.add({
    method: 'GET',
    path: '/clients/{id}',
    scope,
    async handle({ params }) {
      return { status: 200, body: clientJson(await answered(() => clients.get(params.id!))) };
    },
  });

  router.add({
    method: 'POST',
    path: '/clients',
    scope,
    body: NewClientBody,
    async handle({ body, actor }) {
      const created = await answered(
        () =>
          clients.create(actor, {
            clientId: body.client_id,
            redirectUris: body.redirect_uris,
            postLogoutRedirectUris: body.post_logout_redirect_uris,
            public: body.public,
            ...(body.token_endpoint_auth_method !== undefined ? { authMethod: body.token_endpoint_auth_method } : {}),
            ...(body.grant_types !== undefined ? { grantTypes: body.grant_types } : {}),
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.id_token_field !== undefined ? { idTokenField: body.id_token_field } : {}),
          }),
      );
      return {
        status: 201,
        headers: { Location: `${ADMIN_BASE}/clients/${encodeURIComponent(created.client.clientId)}` },
        body: { ...clientJson(created.client), ...(created.clientSecret !== undefined ? { client_secret: created.clientSecret } : {}) },
      };
    },
  });

  router.add({
    method: 'PATCH',
    path: '/clients/{id}',
    scope,
    body: ClientChangesBody,
    async handle({ params, body, actor }) {
      const changes = {
        ...(body.redirect_uris !== undefined ? { redirectUris: body.redirect_uris } : {}),
        ...(body.post_logout_redirect_uris !== undefined ? { postLogoutRedirectUris: body.post_logout_redirect_uris } : {}),
        ...(body.grant_types !== undefined ? { grantTypes: body.grant_types } : {}),
        ...(body.name !== undefined ? { name: body.name } : {}),
      };
      return { status: 200, body: clientJson(await answered(() => clients.update(actor, params.id!, changes))) };
    },
  });

  router.add({
    method: 'POST',
    path: '/clients/{id}/secret/rotate',
    scope,
    body: RotateBody,
    async handle({ params, body, actor }) {
      const grace = body?.grace_seconds;
      const rotated = await answered(() => clients.rotateSecret(actor, params.id!, grace === undefined ? {} : { graceSeconds: grace }));
      return { status: 200, body: { ...clientJson(rotated.client), client_secret: rotated.clientSecret } };
    },
  });

  router.add({
    method: 'DELETE',
    path: '/clients/{id}',
    scope,
    async handle({ params, actor }) {
      await answered(() => clients.remove(actor, params.id!));
      return { status: 204 };
    },
  });
}
