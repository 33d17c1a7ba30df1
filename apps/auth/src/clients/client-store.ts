/**
 * Registered OAuth clients. Rules:
 * - client ids are 1-128 characters of [a-zA-Z0-9._-];
 * - redirect and post-logout URIs are absolute http(s) URLs without a fragment or credentials;
 *   plain http is accepted only for localhost and 127.0.0.1 (RFC 8252 loopback, development);
 * - a client using the authorization_code grant needs at least one redirect URI; a
 *   client_credentials-only client (e.g. the API's introspection client) needs none;
 * - confidential clients get a 32-byte random secret (base64url) unless one of at least 8
 *   characters is given; it is stored sealed and returned in clear only by create(),
 *   rotateSecret() and find() (find() feeds client authentication, client-secret.ts);
 * - rotateSecret() replaces the secret with a new random one in one statement; the replaced secret
 *   stays valid until `now + graceMs` (sealed too); a rotation during a running grace period drops
 *   the older secret: at most two secrets are valid at once. Grace 0 keeps none. An expired previous
 *   secret is never returned (enforced on read with the store's clock, like the adapter's expiry);
 * - update() changes redirect URIs, post-logout URIs, grant types and name, checked with the
 *   same rules as create() on the whole resulting client;
 * - public clients have no secret, authenticate with `none` and cannot use client_credentials;
 * - `idTokenField` (off by default) names an extra token-response member that repeats the ID
 *   token (the seed's `JWT_token` variant); it must be an identifier that no RFC 6749 / OIDC
 *   token-response member uses.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { precompile } from '@gatehouse/db';
import type { Engine } from '@gatehouse/db';
import type { SecretBox } from '../crypto/secret-box.ts';
import { reportingChange, type ClientChangeTracker } from './client-change-tracker.ts';
import { NO_READ_AHEAD, READ_AHEAD_KEYS, type ReadAhead } from '../oidc/read-ahead.ts';
import { POLICY_ROWS_COLUMN, policyRowsSql } from '../policy/scope-policy-store.ts';
import type { AuthSchema, ClientsTable } from '../storage/schema.ts';
import { CodedError } from '../errors/coded-error.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface ClientRecord {
  clientId: string;
  /** Plaintext, decrypted; confidential clients only. */
  clientSecret?: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  public: boolean;
  tokenEndpointAuthMethod: ClientAuthMethod | 'none';
  grantTypes: string[];
  name: string;
  /** Extra token-response member that carries the ID token too, e.g. `JWT_token`. */
  idTokenField?: string;
  /** The API scopes the client may be granted (`authctl client scopes`, policy/); absent: any. */
  allowedScopes?: string[];
  /** Plaintext: the secret the last rotation replaced, present only while its grace period runs. */
  previousClientSecret?: string;
  /** When the previous secret stops working (epoch ms); present with previousClientSecret. */
  previousSecretExpiresAt?: number;
  createdAt: number;
  /** Last change of the registration or secret (epoch ms), absent before the first. */
  updatedAt?: number;
  /** Last secret rotation (epoch ms), absent before the first. */
  secretRotatedAt?: number;
}

export interface NewClient {
  clientId: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  public?: boolean;
  authMethod?: ClientAuthMethod;
  grantTypes?: string[];
  name?: string;
  /** Explicit secret, for development seeding; generated when absent. */
  clientSecret?: string;
  idTokenField?: string;
}

/** The fields update() changes; an absent field keeps its value. */
export interface ClientChanges {
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  grantTypes?: string[];
  name?: string;
}

export interface RotatedSecret {
  clientId: string;
  /** The new secret, in clear: shown once. */
  clientSecret: string;
  /** When the replaced secret stops working (epoch ms); absent with a grace period of 0. */
  previousSecretExpiresAt?: number;
}

export interface ClientStore {
  /** Throws ClientRegistryError. Returns the secret in clear once, for confidential clients. */
  create(input: NewClient): Promise<{ clientId: string; clientSecret?: string }>;
  find(clientId: string): Promise<ClientRecord | undefined>;
  /** By client id; with `limit`, at most that many after the client id `after` (keyset paging). */
  list(page?: { after?: string; limit?: number }): Promise<ClientRecord[]>;
  /** Throws ClientRegistryError (`unknown_client`, or a rule of create()). */
  update(clientId: string, changes: ClientChanges): Promise<ClientRecord>;
  /** Throws ClientRegistryError `unknown_client` or `public_client`. */
  rotateSecret(clientId: string, graceMs: number): Promise<RotatedSecret>;
  remove(clientId: string): Promise<boolean>;
}

export type ClientRegistryErrorCode = 'duplicate_client' | 'invalid_redirect_uri' | 'invalid_input' | 'unknown_client' | 'public_client';

/**
 * The field a refusal is about (admin API field errors): a registration field by its RFC 7591
 * metadata name, or an input of the client service (client-admin.ts: grace period, page cursor).
 */
export type ClientField =
  | 'client_id'
  | 'redirect_uris'
  | 'post_logout_redirect_uris'
  | 'grant_types'
  | 'token_endpoint_auth_method'
  | 'client_secret'
  | 'name'
  | 'id_token_field'
  | 'grace_seconds'
  | 'after';

export class ClientRegistryError extends CodedError<ClientRegistryErrorCode> {
  /** Set when one field is at fault, so callers need not read the message. */
  readonly field: ClientField | undefined;
  constructor(code: ClientRegistryErrorCode, message: string, field?: ClientField) {
    super(code, message);
    this.field = field;
  }
}

export const DEFAULT_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];
const SUPPORTED_GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials']);
const AUTH_METHODS = new Set<string>(['client_secret_basic', 'client_secret_post']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);
const TOKEN_RESPONSE_MEMBERS = new Set([
  'access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'id_token', 'state',
  'error', 'error_description', 'error_uri', 'issued_token_type', 'authorization_details',
]);

/** Checks one redirect or post-logout URI; throws `invalid_redirect_uri` naming it (and `field`). */
export function checkRedirectUri(uri: string, field: 'redirect_uris' | 'post_logout_redirect_uris' = 'redirect_uris'): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" is not an absolute URL`, field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must use https (or http on localhost)`, field);
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must use https; http is allowed only for localhost and 127.0.0.1`, field);
  }
  if (uri.includes('#')) throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must not contain a fragment`, field);
  if (url.username || url.password) throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must not contain credentials`, field);
}

function validate(input: NewClient): Omit<ClientRecord, 'createdAt'> {
  if (!/^[a-zA-Z0-9._-]{1,128}$/.test(input.clientId)) {
    throw new ClientRegistryError('invalid_input', 'client_id must be 1-128 characters of letters, digits, ".", "_" or "-"', 'client_id');
  }
  const grantTypes = [...new Set(input.grantTypes?.length ? input.grantTypes : DEFAULT_GRANT_TYPES)];
  const unsupported = grantTypes.find((g) => !SUPPORTED_GRANT_TYPES.has(g));
  if (unsupported) {
    throw new ClientRegistryError('invalid_input', `grant type "${unsupported}" is not supported (use authorization_code, refresh_token or client_credentials)`, 'grant_types');
  }
  const isPublic = input.public ?? false;
  if (input.authMethod !== undefined && !AUTH_METHODS.has(input.authMethod)) {
    throw new ClientRegistryError('invalid_input', `auth method "${input.authMethod}" is not supported (use client_secret_basic or client_secret_post)`, 'token_endpoint_auth_method');
  }
  if (isPublic) {
    if (input.authMethod) throw new ClientRegistryError('invalid_input', 'a public client has no secret, so an auth method does not apply', 'token_endpoint_auth_method');
    if (input.clientSecret !== undefined) throw new ClientRegistryError('invalid_input', 'a public client cannot have a secret', 'client_secret');
    if (grantTypes.includes('client_credentials')) throw new ClientRegistryError('invalid_input', 'a public client cannot use the client_credentials grant', 'grant_types');
  }
  if (input.clientSecret !== undefined && input.clientSecret.length < 8) {
    throw new ClientRegistryError('invalid_input', 'client secret must be at least 8 characters', 'client_secret');
  }
  const redirectUris = [...new Set(input.redirectUris)];
  const postLogoutRedirectUris = [...new Set(input.postLogoutRedirectUris ?? [])];
  for (const uri of redirectUris) checkRedirectUri(uri, 'redirect_uris');
  for (const uri of postLogoutRedirectUris) checkRedirectUri(uri, 'post_logout_redirect_uris');
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) {
    throw new ClientRegistryError('invalid_redirect_uri', 'at least one redirect URI is required for the authorization_code grant', 'redirect_uris');
  }
  if (input.idTokenField !== undefined) {
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(input.idTokenField)) {
      throw new ClientRegistryError('invalid_input', 'ID token field must be 1-64 letters, digits or "_", starting with a letter (e.g. JWT_token)', 'id_token_field');
    }
    if (TOKEN_RESPONSE_MEMBERS.has(input.idTokenField)) {
      throw new ClientRegistryError('invalid_input', `ID token field "${input.idTokenField}" is already a token-response member`, 'id_token_field');
    }
  }
  const name = (input.name ?? input.clientId).trim();
  if (!name || name.length > 128 || /\p{Cc}/u.test(name)) {
    throw new ClientRegistryError('invalid_input', 'client name must be 1-128 characters without control characters', 'name');
  }
  return {
    clientId: input.clientId,
    redirectUris,
    postLogoutRedirectUris,
    public: isPublic,
    tokenEndpointAuthMethod: isPublic ? 'none' : (input.authMethod ?? 'client_secret_basic'),
    grantTypes,
    name,
    ...(input.idTokenField !== undefined ? { idTokenField: input.idTokenField } : {}),
  };
}

/**
 * Inside an oidc-provider request (`readAhead` active), find() reads the scope policy rows in the
 * same statement as the client and keeps them for that request's access policy
 * (policy/scope-policy-store.ts): one round trip instead of two per token request. `engine` picks
 * the SQL of that statement (JSON aggregation differs).
 */
export interface ClientStoreReadAhead {
  readAhead: ReadAhead;
  engine: Engine;
  /**
   * When a kept client row may be reused (client-change-tracker.ts): while `version()` stays, the row
   * (with its policy rows) read at that version is reused instead of read again; this store
   * reports its own writes with `changed()`. Without it, every lookup reads.
   */
  changes?: ClientChangeTracker;
}

/** Most client rows kept for reuse while the data is unchanged; past it they are all dropped. */
export const CLIENT_ROWS_KEPT = 1024;

/** `clock` (epoch ms) stamps createdAt; it defaults to the system time. */
export function createClientStore(db: Kysely<AuthSchema>, box: SecretBox, clock: () => number = Date.now, ahead?: ClientStoreReadAhead): ClientStore {
  // The token endpoint reads its client on every request. The row is read again as soon as the
  // database has changed (a removed client or a new secret takes effect at once; on SQLite an
  // unchanged row is reused, below); the decryption of a sealed value seen before is skipped: the
  // same sealed text always opens to the same secret.
  const opened = new Map<string, string>();
  const open = (sealed: string): string => {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      secret = box.open(sealed);
      if (opened.size >= 1024) opened.clear();
      opened.set(sealed, secret);
    }
    return secret;
  };
  // Optional members are assigned, not spread in: after a spread V8 defines every later member
  // of the literal through its runtime, and this runs on every token request (bench/README.md).
  const toRecord = (row: Selectable<ClientsTable>): ClientRecord => {
    const record: ClientRecord = {
      clientId: row.client_id,
      redirectUris: JSON.parse(row.redirect_uris) as string[],
      postLogoutRedirectUris: JSON.parse(row.post_logout_redirect_uris) as string[],
      public: row.public === 1,
      tokenEndpointAuthMethod: row.token_endpoint_auth_method as ClientRecord['tokenEndpointAuthMethod'],
      grantTypes: JSON.parse(row.grant_types) as string[],
      name: row.name,
      createdAt: Number(row.created_at),
    };
    if (row.client_secret_sealed !== null) record.clientSecret = open(row.client_secret_sealed);
    if (row.previous_secret_sealed && row.previous_secret_expires_at !== null && row.previous_secret_expires_at !== undefined && Number(row.previous_secret_expires_at) > clock()) {
      record.previousClientSecret = open(row.previous_secret_sealed);
      record.previousSecretExpiresAt = Number(row.previous_secret_expires_at);
    }
    if (row.id_token_field) record.idTokenField = row.id_token_field;
    if (row.allowed_scopes != null) record.allowedScopes = JSON.parse(row.allowed_scopes) as string[];
    if (row.updated_at !== null && row.updated_at !== undefined) record.updatedAt = Number(row.updated_at);
    if (row.secret_rotated_at !== null && row.secret_rotated_at !== undefined) record.secretRotatedAt = Number(row.secret_rotated_at);
    return record;
  };
  const unknown = (clientId: string) => new ClientRegistryError('unknown_client', `unknown client "${clientId}"`);
  // Run by every request that authenticates a client (token endpoint): compiled once.
  const findQuery = precompile(db, ['clientId'], (v) => db.selectFrom('clients').selectAll().where('client_id', '=', v.clientId));
  const readAhead = ahead?.readAhead ?? NO_READ_AHEAD;
  const findWithPoliciesQuery = precompile(db, ['clientId'], (v) =>
    db
      .selectFrom('clients')
      .selectAll()
      .select(sql<string>`(${sql.raw(policyRowsSql(ahead?.engine ?? 'sqlite'))})`.as(POLICY_ROWS_COLUMN))
      .where('client_id', '=', v.clientId),
  );
  type RowWithPolicies = Selectable<ClientsTable> & Record<typeof POLICY_ROWS_COLUMN, string>;
  // Client rows with their policy rows, each kept with the version of the data it was read at
  // (client-change-tracker.ts): the token endpoint reads the same client on every request. A change by
  // this process or another one (authctl, another server) moves the version, and the next lookup
  // reads again. The version is taken before the read: a change committed during the read moves
  // it after, so the row is not reused. A missing client is not kept.
  const kept = new Map<string, { version: number; row: RowWithPolicies }>();
  const readWithPolicies = async (clientId: string): Promise<RowWithPolicies | undefined> => {
    const version = ahead?.changes?.version();
    const hit = version === undefined ? undefined : kept.get(clientId);
    if (hit && hit.version === version) return hit.row;
    const row = (await findWithPoliciesQuery({ clientId })).rows[0] as RowWithPolicies | undefined;
    if (version === undefined) return row;
    if (row) {
      if (kept.size >= CLIENT_ROWS_KEPT) kept.clear();
      kept.set(clientId, { version, row });
    } else kept.delete(clientId);
    return row;
  };
  const find = async (clientId: string): Promise<ClientRecord | undefined> => {
    if (ahead && readAhead.active()) {
      // Read ahead with more (oidc/adapter.ts: a refresh request's token), or read now with the policies.
      const given = readAhead.take(READ_AHEAD_KEYS.client(clientId)) as { value: RowWithPolicies | undefined } | undefined;
      const row = given ? given.value : await readWithPolicies(clientId);
      if (row) readAhead.put(READ_AHEAD_KEYS.scopePolicies, JSON.parse(row[POLICY_ROWS_COLUMN]) as unknown);
      return row && toRecord(row);
    }
    const row = (await findQuery({ clientId })).rows[0];
    return row && toRecord(row);
  };

  // A kept row is not reused after a write of this store (client-change-tracker.ts).
  const writing = <T>(write: () => Promise<T>) => reportingChange(ahead?.changes, write);

  return {
    async create(input) {
      const client = validate(input);
      const secret = client.public ? undefined : (input.clientSecret ?? randomBytes(32).toString('base64url'));
      const result = await writing(() =>
        db
          .insertInto('clients')
          .values({
            client_id: client.clientId,
            client_secret_sealed: secret === undefined ? null : box.seal(secret),
            redirect_uris: JSON.stringify(client.redirectUris),
            post_logout_redirect_uris: JSON.stringify(client.postLogoutRedirectUris),
            public: client.public ? 1 : 0,
            token_endpoint_auth_method: client.tokenEndpointAuthMethod,
            grant_types: JSON.stringify(client.grantTypes),
            name: client.name,
            id_token_field: client.idTokenField ?? null,
            created_at: clock(),
          })
          .onConflict((oc) => oc.column('client_id').doNothing())
          .executeTakeFirst(),
      );
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) {
        throw new ClientRegistryError('duplicate_client', `client "${client.clientId}" already exists`);
      }
      return secret === undefined ? { clientId: client.clientId } : { clientId: client.clientId, clientSecret: secret };
    },

    find,

    async list(page = {}) {
      let query = db.selectFrom('clients').selectAll().orderBy('client_id');
      if (page.after !== undefined) query = query.where('client_id', '>', page.after);
      if (page.limit !== undefined) query = query.limit(page.limit);
      return (await query.execute()).map(toRecord);
    },

    async update(clientId, changes) {
      const current = await find(clientId);
      if (!current) throw unknown(clientId);
      // validate() reads an empty grant list as the default; an update has to name the grants.
      if (changes.grantTypes !== undefined && changes.grantTypes.length === 0) {
        throw new ClientRegistryError('invalid_input', 'a client needs at least one grant type', 'grant_types');
      }
      const next = validate({
        clientId,
        redirectUris: changes.redirectUris ?? current.redirectUris,
        postLogoutRedirectUris: changes.postLogoutRedirectUris ?? current.postLogoutRedirectUris,
        public: current.public,
        ...(current.tokenEndpointAuthMethod === 'none' ? {} : { authMethod: current.tokenEndpointAuthMethod }),
        grantTypes: changes.grantTypes ?? current.grantTypes,
        name: changes.name ?? current.name,
        ...(current.idTokenField !== undefined ? { idTokenField: current.idTokenField } : {}),
      });
      const result = await writing(() =>
        db
          .updateTable('clients')
          .set({
            redirect_uris: JSON.stringify(next.redirectUris),
            post_logout_redirect_uris: JSON.stringify(next.postLogoutRedirectUris),
            grant_types: JSON.stringify(next.grantTypes),
            name: next.name,
            updated_at: clock(),
          })
          .where('client_id', '=', clientId)
          .executeTakeFirst(),
      );
      const updated = Number(result.numUpdatedRows) === 1 ? await find(clientId) : undefined;
      if (!updated) throw unknown(clientId);
      return updated;
    },

    async rotateSecret(clientId, graceMs) {
      const current = await find(clientId);
      if (!current) throw unknown(clientId);
      if (current.public) throw new ClientRegistryError('public_client', `client "${clientId}" is public: it has no secret to rotate`);
      const secret = randomBytes(32).toString('base64url');
      const now = clock();
      const expiresAt = graceMs > 0 ? now + graceMs : null;
      // One statement: the secret in force when it runs becomes the previous one, so concurrent
      // rotations each keep the secret they replaced, never a stale read.
      const result = await writing(() =>
        db
          .updateTable('clients')
          .set((eb) => ({
            client_secret_sealed: box.seal(secret),
            previous_secret_sealed: expiresAt === null ? null : eb.ref('client_secret_sealed'),
            previous_secret_expires_at: expiresAt,
            secret_rotated_at: now,
            updated_at: now,
          }))
          .where('client_id', '=', clientId)
          .where('public', '=', 0)
          .executeTakeFirst(),
      );
      if (Number(result.numUpdatedRows) !== 1) throw unknown(clientId);
      return { clientId, clientSecret: secret, ...(expiresAt === null ? {} : { previousSecretExpiresAt: expiresAt }) };
    },

    async remove(clientId) {
      const result = await writing(() => db.deleteFrom('clients').where('client_id', '=', clientId).executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** The client as oidc-provider's Client model expects it. */
export function toOidcClientMetadata(c: ClientRecord): Record<string, unknown> {
  const grantTypes = c.grantTypes.length ? c.grantTypes : [...DEFAULT_GRANT_TYPES];
  // Optional members assigned, not spread in (see toRecord): this too runs on every token request.
  const metadata: Record<string, unknown> = {
    client_id: c.clientId,
    redirect_uris: [...c.redirectUris],
    post_logout_redirect_uris: [...c.postLogoutRedirectUris],
    grant_types: [...grantTypes],
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    client_name: c.name,
    // Custom metadata too: the client's API scope limit as read with it (JSON, `null`: any), so the
    // access policy of the same request need not read the row again (policy/scope-policy.ts).
    api_scope_limit: JSON.stringify(c.allowedScopes ?? null),
  };
  if (!c.public && c.clientSecret !== undefined) metadata.client_secret = c.clientSecret;
  // Custom metadata (provider.ts): accepted by client authentication while its grace period runs
  // (oidc/client-secret-check.ts checks the expiry, epoch ms, again when it compares).
  if (!c.public && c.previousClientSecret !== undefined && c.previousSecretExpiresAt !== undefined) {
    metadata.previous_client_secret = c.previousClientSecret;
    metadata.previous_client_secret_expires_at_ms = c.previousSecretExpiresAt;
  }
  // Custom metadata (provider.ts extraClientMetadata), kept under this name on oidc-provider's Client.
  if (c.idTokenField) metadata.id_token_field = c.idTokenField;
  return metadata;
}
