/**
 * Schema history of the authorization server, applied in name order under the app name `auth`.
 * Rules: never edit a released migration, add the next number; use only Kysely builders
 * that produce SQL valid on both SQLite and PostgreSQL.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Migrations } from '@gatehouse/db';

export const authMigrations: Migrations = {
  '001_accounts': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('groups', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('totp_secret_sealed', 'text')
        .addColumn('totp_last_step', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '002_regulation_failures': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('regulation_failures')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('regulation_failures_key_at').on('regulation_failures').columns(['key', 'at_ms']).execute();
      await db.schema.createIndex('regulation_failures_at').on('regulation_failures').column('at_ms').execute();
    },
  },
  '003_signing_keys': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('alg', 'text', (c) => c.notNull())
        .addColumn('private_jwk_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('retired_at', 'bigint')
        .addColumn('expires_at', 'bigint')
        .execute();
    },
  },
  '004_clients': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('clients')
        .addColumn('client_id', 'text', (c) => c.primaryKey())
        .addColumn('client_secret_sealed', 'text')
        .addColumn('redirect_uris', 'text', (c) => c.notNull())
        .addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull())
        .addColumn('public', 'integer', (c) => c.notNull())
        .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
        .addColumn('grant_types', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '005_oidc_payloads': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('oidc_payloads')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text')
        .addColumn('user_code', 'text')
        .addColumn('uid', 'text')
        .addColumn('expires_at', 'bigint')
        .addColumn('consumed_at', 'bigint')
        .addPrimaryKeyConstraint('oidc_payloads_pk', ['model', 'id'])
        .execute();
      for (const column of ['grant_id', 'uid', 'user_code', 'expires_at']) {
        await db.schema.createIndex(`oidc_payloads_${column}`).on('oidc_payloads').column(column).execute();
      }
    },
  },
  '006_push_authenticator': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('devices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('public_key_jwk', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema.createIndex('devices_account').on('devices').column('account_id').execute();
      await db.schema
        .createTable('device_enrollments')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema
        .createTable('device_nonces')
        .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id').onDelete('cascade'))
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('device_nonces_pk', ['device_id', 'nonce'])
        .execute();
      await db.schema.createIndex('device_nonces_expires').on('device_nonces').column('expires_at').execute();
      await db.schema
        .createTable('push_transactions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('interaction_uid', 'text', (c) => c.notNull())
        .addColumn('live_uid', 'text', (c) => c.unique())
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('choices', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('client_name', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('decided_at', 'bigint')
        .addColumn('device_id', 'text')
        .addColumn('completed_at', 'bigint')
        .execute();
      await db.schema.createIndex('push_transactions_account_created').on('push_transactions').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('push_transactions_interaction').on('push_transactions').column('interaction_uid').execute();
      await db.schema
        .createTable('recovery_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('code_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('recovery_codes_account').on('recovery_codes').column('account_id').execute();
    },
  },
  '007_token_revocations': {
    async up(db: Kysely<unknown>) {
      // The id is the revocation feed's cursor: it must only grow, on both engines.
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      await db.schema
        .createTable('token_revocations')
        .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('jti', 'text')
        .addColumn('grant_id', 'text')
        .addColumn('subject', 'text')
        .addColumn('issued_before', 'bigint')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('token_revocations_jti').on('token_revocations').column('jti').execute();
      await db.schema.createIndex('token_revocations_subject').on('token_revocations').column('subject').execute();
      await db.schema.createIndex('token_revocations_expires').on('token_revocations').column('expires_at').execute();
      await db.schema.alterTable('clients').addColumn('id_token_field', 'text').execute();
    },
  },
  '008_account_disabled': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('accounts').addColumn('disabled_at', 'bigint').execute();
    },
  },
  '009_signing_key_activation': {
    async up(db: Kysely<unknown>) {
      // activates_at: when a pre-published key starts signing (null: active since created_at).
      // replaces_kid: the key a scheduled successor replaces; unique, so concurrent instances
      // scheduling the same rotation insert exactly one successor (NULLs never collide).
      await db.schema.alterTable('signing_keys').addColumn('activates_at', 'bigint').execute();
      await db.schema.alterTable('signing_keys').addColumn('replaces_kid', 'text').execute();
      await db.schema.createIndex('signing_keys_replaces_kid').on('signing_keys').column('replaces_kid').unique().execute();
    },
  },
  '010_passkeys': {
    async up(db: Kysely<unknown>) {
      // id: the credential id (base64url) the authenticator chose; unique across accounts.
      await db.schema
        .createTable('passkeys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull())
        .addColumn('transports', 'text', (c) => c.notNull())
        .addColumn('device_type', 'text', (c) => c.notNull())
        .addColumn('backed_up', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema.createIndex('passkeys_account').on('passkeys').column('account_id').execute();
      // Ceremony challenges: single use (deleted when used), bound to a login or an account.
      await db.schema
        .createTable('passkey_challenges')
        .addColumn('challenge', 'text', (c) => c.primaryKey())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('binding', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('passkey_challenges_expires').on('passkey_challenges').column('expires_at').execute();
    },
  },
  '011_scope_policy': {
    async up(db: Kysely<unknown>) {
      // Access policy (policy/): per API scope, the groups whose users may be granted it (JSON
      // array); a scope without a row is open to every user (the behaviour before this migration).
      await db.schema
        .createTable('scope_policies')
        .addColumn('scope', 'text', (c) => c.primaryKey())
        .addColumn('groups', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // Per client, the API scopes it may request (JSON array); null: any, as before.
      await db.schema.alterTable('clients').addColumn('allowed_scopes', 'text').execute();
    },
  },
  '012_audit_events': {
    async up(db: Kysely<unknown>) {
      // The audit trail (audit/): every audit event, newest first by (occurred_at, id). The id only
      // grows (insertion order breaks ties within a millisecond); each filter of the query has an
      // index ending in (occurred_at, id), so a page is an index range scan on both engines.
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      await db.schema
        .createTable('audit_events')
        .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text')
        .addColumn('username', 'text')
        .addColumn('client_id', 'text')
        .addColumn('actor_kind', 'text')
        .addColumn('actor', 'text')
        .addColumn('ip', 'text')
        .addColumn('fields', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_events_time').on('audit_events').columns(['occurred_at', 'id']).execute();
      await db.schema.createIndex('audit_events_account_time').on('audit_events').columns(['account_id', 'occurred_at', 'id']).execute();
      await db.schema.createIndex('audit_events_username_time').on('audit_events').columns(['username', 'occurred_at', 'id']).execute();
      await db.schema.createIndex('audit_events_client_time').on('audit_events').columns(['client_id', 'occurred_at', 'id']).execute();
      await db.schema.createIndex('audit_events_event_time').on('audit_events').columns(['event', 'occurred_at', 'id']).execute();
    },
  },
  '014_client_secret_rotation': {
    async up(db: Kysely<unknown>) {
      // Secret rotation with a grace period (clients/client-store.ts): the secret replaced by the
      // last rotation, sealed like the current one, and when it stops working (epoch ms); both
      // null when no grace period runs. secret_rotated_at / updated_at: null until the first
      // rotation / change.
      await db.schema.alterTable('clients').addColumn('previous_secret_sealed', 'text').execute();
      await db.schema.alterTable('clients').addColumn('previous_secret_expires_at', 'bigint').execute();
      await db.schema.alterTable('clients').addColumn('secret_rotated_at', 'bigint').execute();
      await db.schema.alterTable('clients').addColumn('updated_at', 'bigint').execute();
    },
  },
  '015_account_page': {
    async up(db: Kysely<unknown>) {
      // The browser and last use of each SSO session (sessions/session-meta-store.ts), keyed by
      // oidc-provider's session uid (stable while the cookie's id rotates); removed with the session.
      await db.schema
        .createTable('session_meta')
        .addColumn('session_uid', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('browser', 'text', (c) => c.notNull())
        .addColumn('ip', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('session_meta_account').on('session_meta').column('account_id').execute();
      // One-time password-reset links (admin/password-reset.ts): only the SHA-256 of the token is
      // kept; one live link per account (issuing a new one deletes the old).
      await db.schema
        .createTable('password_resets')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('password_resets_account').on('password_resets').column('account_id').execute();
    },
  },
  '016_client_change_notifications': {
    async up(db: Kysely<unknown>) {
      // PostgreSQL only: every committed change to the clients or the scope policies notifies the
      // channel `gatehouse_clients`, so each server drops the client rows it keeps for the token
      // endpoint (clients/client-change-tracker.ts). Statement triggers: one notification per statement,
      // and PostgreSQL folds the identical ones of a transaction into one, sent at commit.
      // SQLite needs nothing: there a server sees any commit to the file through data_version.
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await sql`create function gatehouse_clients_changed() returns trigger language plpgsql as $$
        begin
          perform pg_notify('gatehouse_clients', '');
          return null;
        end
      $$`.execute(db);
      for (const table of ['clients', 'scope_policies']) {
        await sql`create trigger ${sql.id(`${table}_changed`)} after insert or update or delete or truncate on ${sql.table(table)} for each statement execute function gatehouse_clients_changed()`.execute(db);
      }
    },
  },
  '017_oidc_payloads_sparse_indexes': {
    async up(db: Kysely<unknown>) {
      // Only sessions and interactions carry a uid, and no model Gatehouse enables carries a user
      // code: indexes of the rows that have one, so stored tokens and grants add no NULL entries
      // and a refresh-token rotation rewrites no index page it does not need (bench/README.md, "Token path").
      // `uid = ?` (and a join on it) still finds its row through the index: it implies NOT NULL.
      for (const column of ['uid', 'user_code'] as const) {
        await db.schema.dropIndex(`oidc_payloads_${column}`).execute();
        await db.schema.createIndex(`oidc_payloads_${column}`).on('oidc_payloads').column(column).where(sql.ref(column), 'is not', null).execute();
      }
    },
  },
  '018_client_interop': {
    async up(db: Kysely<unknown>) {
      // Client metadata for standard clients (clients/client-store.ts): first-party clients skip
      // the consent page; response_types (JSON array; null: derived from the grant types, `code`
      // with authorization_code); the client's public keys for private_key_jwt, inline (a JSON JWK
      // Set) or by URL; and whether its access tokens must be DPoP-bound (RFC 9449).
      await db.schema.alterTable('clients').addColumn('first_party', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('clients').addColumn('response_types', 'text').execute();
      await db.schema.alterTable('clients').addColumn('jwks', 'text').execute();
      await db.schema.alterTable('clients').addColumn('jwks_uri', 'text').execute();
      await db.schema.alterTable('clients').addColumn('dpop_bound_access_tokens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  '019_consents': {
    async up(db: Kysely<unknown>) {
      // What each user allowed each client (consent/consent-store.ts): remembered across SSO
      // sessions until the user revokes it on the account page. Space-separated scopes and claims.
      // A removed account or client takes its records along: a client id registered again later
      // is another app and asks again.
      await db.schema
        .createTable('consents')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('client_id', 'text', (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('claims', 'text', (c) => c.notNull())
        .addColumn('granted_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('consents_pk', ['account_id', 'client_id'])
        .execute();
    },
  },
  '021_audit_request_id': {
    async up(db: Kysely<unknown>) {
      // The request that caused an audit event (X-Request-Id, the id nginx logs too): one id
      // leads from a row of the trail to the access log lines of every hop. Null for authctl.
      await db.schema.alterTable('audit_events').addColumn('request_id', 'text').execute();
    },
  },
  '022_client_logo': {
    async up(db: Kysely<unknown>) {
      // The client's logo (RFC 7591 / OIDC Dynamic Client Registration `logo_uri`), shown beside its
      // name on the consent page (clients/client-store.ts checks it). Null: no logo.
      await db.schema.alterTable('clients').addColumn('logo_uri', 'text').execute();
    },
  },
  '023_client_token_exchange': {
    async up(db: Kysely<unknown>) {
      // The client's token-exchange policy (RFC 8693, clients/token-exchange-policy.ts): JSON
      // `{ audiences, scopes }`, what it may exchange a user's token for. Null: no token exchange.
      await db.schema.alterTable('clients').addColumn('token_exchange', 'text').execute();
    },
  },
  '024_client_backchannel_logout': {
    async up(db: Kysely<unknown>) {
      // OpenID Connect Back-Channel Logout 1.0 §2.2 client metadata (clients/client-store.ts checks
      // it): where logout tokens are posted (null: none), and whether they carry `sid`.
      await db.schema.alterTable('clients').addColumn('backchannel_logout_uri', 'text').execute();
      await db.schema.alterTable('clients').addColumn('backchannel_logout_session_required', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  '025_oidc_payloads_fillfactor': {
    async up(db: Kysely<unknown>) {
      // PostgreSQL only: pages of oidc_payloads are filled to half by inserts, so the update that
      // consumes a refresh token (or touches a session) finds room on its own page and changes no
      // indexed column: a heap-only update, which writes no entry in any of the table's indexes.
      // A rotation's row takes the room the consumption left on older pages, so the table grows no
      // larger (bench/README.md, "Token path"). Pages written before keep their layout until rewritten.
      // SQLite updates rows in place in the table's b-tree and needs nothing.
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await sql`alter table oidc_payloads set (fillfactor = 50)`.execute(db);
    },
  },
  '026_identity_providers': {
    async up(db: Kysely<unknown>) {
      // Upstream identity providers users may sign in with (federation/identity-provider-store.ts).
      // The slug is the key and never changes (it is in /login/federated/<slug> URLs and in account
      // links). Lists and mappings are JSON text; secrets are sealed (`*_sealed`, secret-box.ts).
      // `issuer` (oidc) is where discovery is read; oauth2 providers name their endpoints instead.
      // `issuer_template` accepts tenant-specific `iss` values (`{tenantid}` stands for the ID token's `tid`).
      await db.schema
        .createTable('identity_providers')
        .addColumn('slug', 'text', (c) => c.primaryKey())
        .addColumn('display_name', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('preset', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('issuer', 'text')
        .addColumn('issuer_template', 'text')
        .addColumn('allowed_tenants', 'text')
        .addColumn('authorization_endpoint', 'text')
        .addColumn('token_endpoint', 'text')
        .addColumn('userinfo_endpoint', 'text')
        .addColumn('emails_endpoint', 'text')
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('client_secret_sealed', 'text')
        .addColumn('token_endpoint_auth_method', 'text', (c) => c.notNull())
        .addColumn('private_jwk_sealed', 'text')
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('use_userinfo', 'integer', (c) => c.notNull())
        .addColumn('claims', 'text', (c) => c.notNull())
        .addColumn('trust_email', 'integer', (c) => c.notNull())
        .addColumn('group_mappings', 'text', (c) => c.notNull())
        .addColumn('provisioning', 'text', (c) => c.notNull())
        .addColumn('mfa_policy', 'text', (c) => c.notNull())
        .addColumn('mfa_accepted_amr', 'text', (c) => c.notNull())
        .addColumn('mfa_accepted_acr', 'text', (c) => c.notNull())
        .addColumn('home_realm_domains', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint')
        .execute();
    },
  },
  '027_account_links': {
    async up(db: Kysely<unknown>) {
      // Upstream users linked to local accounts (federation/account-link-store.ts): a returning
      // federated user is found by (provider slug, upstream subject), never by e-mail. An account
      // holds at most one link per provider. Removing the account removes its links.
      await db.schema
        .createTable('account_links')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addPrimaryKeyConstraint('account_links_pk', ['provider', 'subject'])
        .addUniqueConstraint('account_links_account_provider', ['account_id', 'provider'])
        .execute();
    },
  },
  '031_totp_enrollments': {
    async up(db: Kysely<unknown>) {
      // A TOTP enrollment in progress (accounts/totp-enrollment-store.ts): the pending secret is
      // kept, sealed, until its first code is verified or the user starts over, so every view of
      // the enrollment page shows the same key; recovery codes issued with it are kept, sealed,
      // until the user confirms they saved them. Removing the account removes the row.
      await db.schema
        .createTable('totp_enrollments')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('secret_sealed', 'text')
        .addColumn('secret_created_at', 'bigint')
        .addColumn('recovery_codes_sealed', 'text')
        .addColumn('recovery_codes_issued_at', 'bigint')
        .execute();
    },
  },
  '032_factor_preferences': {
    async up(db: Kysely<unknown>) {
      // The second factor offered first at sign-in (accounts/factor-preference-store.ts): the one
      // the user set as preferred on the account page, else the one that passed last. Removing
      // the account removes the row.
      await db.schema
        .createTable('factor_preferences')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('preferred', 'text')
        .addColumn('last_used', 'text')
        .addColumn('last_used_at', 'bigint')
        .execute();
    },
  },
  '033_email_changes': {
    async up(db: Kysely<unknown>) {
      // A change of e-mail address waiting for its one-time link (accounts/email-change-store.ts):
      // one per account, the new address, the SHA-256 of the link's token (never the token) and
      // its expiry. Removing the account removes the row.
      await db.schema
        .createTable('email_changes')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('new_email', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  '034_push_refusal': {
    async up(db: Kysely<unknown>) {
      // Why a push was REJECTED (push/push-answer.ts): a deliberate denial or a wrong number,
      // each shown with its own message on the sign-in page; and when the user reported a denied
      // push as not theirs ("this wasn't me", push/push-report.ts), recorded once.
      await db.schema.alterTable('push_transactions').addColumn('refusal', 'text').execute();
      await db.schema.alterTable('push_transactions').addColumn('reported_at', 'bigint').execute();
    },
  },
  '035_audit_events_sparse_indexes': {
    async up(db: Kysely<unknown>) {
      // Many events name no account, typed username or client (every token issued names only its
      // client, a sign-in step no client): the indexes of those three filters hold only the rows
      // that carry the value, so such an event adds no NULL entry to them (bench/README.md, "Token path").
      // A filter `column = ?` still finds its rows through them: it implies NOT NULL.
      for (const column of ['account_id', 'username', 'client_id'] as const) {
        const name = `audit_events_${column === 'account_id' ? 'account' : column === 'client_id' ? 'client' : column}_time`;
        await db.schema.dropIndex(name).execute();
        await db.schema.createIndex(name).on('audit_events').columns([column, 'occurred_at', 'id']).where(sql.ref(column), 'is not', null).execute();
      }
    },
  },
  '036_oidc_payloads_token_keys': {
    async up(db: Kysely<unknown>) {
      // The account and session a stored model names (its payload's accountId and sessionUid), as
      // columns written with the row: a refresh reads the presented token with its session and
      // account in one statement (oidc/token-path-reads.ts), and joining on a column parses no
      // JSON text (bench/README.md, "Token path"). No index: the joins go from these columns to
      // the session's uid and the account's id. Rows stored before are filled in from their payload.
      await db.schema.alterTable('oidc_payloads').addColumn('account_id', 'text').execute();
      await db.schema.alterTable('oidc_payloads').addColumn('session_uid', 'text').execute();
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      const key = (name: string) => (postgres ? sql`(payload::json ->> ${name})` : sql`json_extract(payload, ${`$.${name}`})`);
      await sql`update oidc_payloads set account_id = ${key('accountId')}, session_uid = ${key('sessionUid')}`.execute(db);
    },
  },
};
