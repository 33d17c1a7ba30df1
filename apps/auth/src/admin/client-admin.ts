/**
 * Operator changes to OAuth clients: the one service behind authctl and the admin API. Rules:
 * - every change takes the `actor` who makes it and writes one audit event naming it and the
 *   client (`admin.client.*`, audit/audit-events.ts); reads (get, list) are not audited;
 * - reads never carry a secret (ClientView has none); a secret in clear is returned once, by
 *   create() and rotateSecret(), and never logged;
 * - create() and update() apply client-store.ts's rules (client id, redirect URIs with
 *   checkRedirectUri, grant types, public clients); update() needs at least one field and keeps
 *   the others;
 * - rotateSecret() issues a new random secret; the replaced one keeps authenticating the client for
 *   the grace period: whole seconds from 0 to 30 days, 24 hours when not given; 0 ends it at once.
 *   Rotating again while a grace period runs drops the older secret: only the one just replaced
 *   stays valid, for the new grace period. A public client has no secret (`public_client`);
 * - remove() deletes the client: its tokens stop being active at once (introspection and the JWT
 *   checks no longer find the client) and its secrets stop working;
 * - list pages by client id (keyset): `next` is an opaque cursor to pass back as `after`; a
 *   cursor this server did not issue is `invalid_input`;
 * - an unknown client id is ClientRegistryError `unknown_client`, never a silent no-op.
 */
import { keyCursor } from '../storage/key-cursor.ts';
import { actorFields, type Actor } from '../audit/actor.ts';
import type { Auditor } from '../audit/auditor.ts';
import { ClientRegistryError, type ClientChanges, type ClientRecord, type ClientStore, type NewClient } from '../clients/client-store.ts';

/** A client as reads show it: everything but its secrets. */
export type ClientView = Omit<ClientRecord, 'clientSecret' | 'previousClientSecret'>;

export const DEFAULT_GRACE_SECONDS = 86_400;
const MAX_GRACE_SECONDS = 30 * 86_400;

export interface ClientAdminDeps {
  clients: ClientStore;
  audit: Auditor;
}

export interface ClientAdmin {
  /** By client id; with `limit`, one keyset page after the cursor `after`, and the `next` cursor (null on the last page). */
  list(page?: { after?: string; limit?: number }): Promise<{ items: ClientView[]; next: string | null }>;
  get(clientId: string): Promise<ClientView>;
  /** The secret in clear, once, for a confidential client. */
  create(actor: Actor, input: NewClient): Promise<{ client: ClientView; clientSecret?: string }>;
  update(actor: Actor, clientId: string, changes: ClientChanges): Promise<ClientView>;
  /** The new secret in clear, once, and when the replaced one stops working (absent with grace 0). */
  rotateSecret(actor: Actor, clientId: string, options?: { graceSeconds?: number }): Promise<{ client: ClientView; clientSecret: string; previousSecretExpiresAt?: number }>;
  remove(actor: Actor, clientId: string): Promise<void>;
}

const CHANGE_FIELDS = {
  redirectUris: 'redirect_uris',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  grantTypes: 'grant_types',
  name: 'name',
  firstParty: 'first_party',
  responseTypes: 'response_types',
  authMethod: 'token_endpoint_auth_method',
  jwks: 'jwks',
  jwksUri: 'jwks_uri',
  dpopBoundAccessTokens: 'dpop_bound_access_tokens',
  logoUri: 'logo_uri',
  tokenExchange: 'token_exchange',
  backchannelLogoutUri: 'backchannel_logout_uri',
  backchannelLogoutSessionRequired: 'backchannel_logout_session_required',
} as const satisfies Record<keyof ClientChanges, string>;

function toView(record: ClientRecord): ClientView {
  const { clientSecret: _secret, previousClientSecret: _previous, ...view } = record;
  return view;
}

const clientCursor = keyCursor('c', (key) => key !== '');

function decodeCursor(cursor: string): string {
  const clientId = clientCursor.decode(cursor);
  if (clientId === undefined) throw new ClientRegistryError('invalid_input', 'the cursor is not one this server issued', 'after');
  return clientId;
}

function unknownClient(clientId: string): ClientRegistryError {
  return new ClientRegistryError('unknown_client', `unknown client "${clientId}"`);
}

export function createClientAdmin(deps: ClientAdminDeps): ClientAdmin {
  const { clients, audit } = deps;

  return {
    async list(page = {}) {
      const after = page.after === undefined ? undefined : decodeCursor(page.after);
      const from = after === undefined ? {} : { after };
      if (page.limit === undefined) return { items: (await clients.list(from)).map(toView), next: null };
      const rows = await clients.list({ ...from, limit: page.limit + 1 });
      const items = rows.slice(0, page.limit).map(toView);
      return { items, next: rows.length > page.limit ? clientCursor.encode(items[items.length - 1]!.clientId) : null };
    },

    async get(clientId) {
      const record = await clients.find(clientId);
      if (!record) throw unknownClient(clientId);
      return toView(record);
    },

    async create(actor, input) {
      const created = await clients.create(input);
      const record = await clients.find(created.clientId);
      if (!record) throw unknownClient(created.clientId);
      audit.record('admin.client.created', { ...actorFields(actor), client_id: record.clientId, public: record.public });
      return { client: toView(record), ...(created.clientSecret !== undefined ? { clientSecret: created.clientSecret } : {}) };
    },

    async update(actor, clientId, changes) {
      const fields = (Object.keys(CHANGE_FIELDS) as (keyof ClientChanges)[]).filter((key) => changes[key] !== undefined);
      if (fields.length === 0) {
        throw new ClientRegistryError('invalid_input', 'nothing to update: give redirect URIs, post-logout redirect URIs, grant types, a name, response types, an auth method, keys, first-party, DPoP, a logo or a token-exchange policy');
      }
      const record = await clients.update(clientId, changes);
      audit.record('admin.client.updated', { ...actorFields(actor), client_id: clientId, fields: fields.map((key) => CHANGE_FIELDS[key]).join(',') });
      return toView(record);
    },

    async rotateSecret(actor, clientId, options = {}) {
      const graceSeconds = options.graceSeconds ?? DEFAULT_GRACE_SECONDS;
      if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_GRACE_SECONDS) {
        throw new ClientRegistryError('invalid_input', `grace period must be whole seconds from 0 to ${MAX_GRACE_SECONDS} (30 days)`, 'grace_seconds');
      }
      const rotated = await clients.rotateSecret(clientId, graceSeconds * 1000);
      const record = await clients.find(clientId);
      if (!record) throw unknownClient(clientId);
      audit.record('admin.client.secret_rotated', {
        ...actorFields(actor),
        client_id: clientId,
        grace_seconds: graceSeconds,
        ...(rotated.previousSecretExpiresAt !== undefined ? { previous_expires_at: new Date(rotated.previousSecretExpiresAt).toISOString() } : {}),
      });
      return {
        client: toView(record),
        clientSecret: rotated.clientSecret,
        ...(rotated.previousSecretExpiresAt !== undefined ? { previousSecretExpiresAt: rotated.previousSecretExpiresAt } : {}),
      };
    },

    async remove(actor, clientId) {
      if (!(await clients.remove(clientId))) throw unknownClient(clientId);
      audit.record('admin.client.removed', { ...actorFields(actor), client_id: clientId });
    },
  };
}
