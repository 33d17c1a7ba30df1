/**
 * Tables of the authorization server. Conventions shared by every table:
 * - timestamps are epoch milliseconds in BIGINT columns;
 * - lists and objects are JSON text; booleans are INTEGER 0/1;
 * - columns holding secrets (`*_sealed`) contain SecretBox output, never plaintext.
 */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  /** Lower-cased; unique. */
  username: string;
  email: string;
  name: string;
  /** JSON array of group names. */
  groups: string;
  password_hash: string;
  totp_secret_sealed: string | null;
  /** Last RFC 6238 time step accepted for this account; codes at or before it are replays. */
  totp_last_step: number | null;
  created_at: number;
  /** When an operator disabled the account (it cannot sign in, its tokens are inactive), or null. */
  disabled_at: number | null;
}

/** Every column of an account row, for statements that name them (a join that prefixes them). */
export const ACCOUNT_COLUMNS = ['id', 'username', 'email', 'name', 'groups', 'password_hash', 'totp_secret_sealed', 'totp_last_step', 'created_at', 'disabled_at'] as const satisfies readonly (keyof AccountsTable)[];

export interface RegulationFailuresTable {
  id: string;
  key: string;
  at_ms: number;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk_sealed: string;
  created_at: number;
  retired_at: number | null;
  expires_at: number | null;
  /** When the key starts signing; null: active since created_at. */
  activates_at: number | null;
  /** The key this one was scheduled to replace (unique: one successor per key). */
  replaces_kid: string | null;
}

export interface ClientsTable {
  client_id: string;
  client_secret_sealed: string | null;
  /** JSON array. */
  redirect_uris: string;
  /** JSON array. */
  post_logout_redirect_uris: string;
  public: number;
  token_endpoint_auth_method: string;
  /** JSON array. */
  grant_types: string;
  name: string;
  created_at: number;
  /** Extra token-response member carrying the ID token (e.g. `JWT_token`), or null. */
  id_token_field: string | null;
  /** JSON array of the API scopes the client may request; null: any (policy/). */
  allowed_scopes?: string | null;
  /** The secret replaced by the last rotation, sealed, while its grace period runs; else null. */
  previous_secret_sealed?: string | null;
  /** When the previous secret stops working (epoch ms), or null. */
  previous_secret_expires_at?: number | null;
  secret_rotated_at?: number | null;
  updated_at?: number | null;
  /** 1: a first-party client, which skips the consent page unless prompt=consent is sent. */
  first_party?: number;
  /** JSON array of response types (`code`, `id_token`); null: `code` with authorization_code, else none. */
  response_types?: string | null;
  /** JSON Web Key Set (public keys only) for private_key_jwt, or null. */
  jwks?: string | null;
  /** URL of the client's JWK Set for private_key_jwt, or null. */
  jwks_uri?: string | null;
  /** 1: access tokens must be DPoP-bound (RFC 9449 `dpop_bound_access_tokens`). */
  dpop_bound_access_tokens?: number;
  /** The client's logo (RFC 7591 `logo_uri`) shown on the consent page, or null. */
  logo_uri?: string | null;
  /** JSON `{ audiences, scopes }`: the client's token-exchange policy (RFC 8693), or null. */
  token_exchange?: string | null;
  /** Where logout tokens are posted (Back-Channel Logout 1.0 `backchannel_logout_uri`), or null. */
  backchannel_logout_uri?: string | null;
  /** 1: logout tokens carry `sid` (`backchannel_logout_session_required`). */
  backchannel_logout_session_required?: number;
}

export interface OidcPayloadsTable {
  model: string;
  id: string;
  /** JSON object as handed to the adapter by oidc-provider. */
  payload: string;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  /** The payload's accountId and sessionUid (a token's account and session), when it names them. */
  account_id: string | null;
  session_uid: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

/** The columns of an oidc_payloads row that make an oidc-provider model (the rest are lookup keys). */
export const OIDC_PAYLOAD_COLUMNS = ['payload', 'consumed_at', 'expires_at'] as const satisfies readonly (keyof OidcPayloadsTable)[];

/** An enrolled web authenticator: its P-256 public key answers push challenges. */
export interface DevicesTable {
  id: string;
  account_id: string;
  name: string;
  /** JSON of the public JWK (kty EC, crv P-256, x, y). */
  public_key_jwk: string;
  created_at: number;
  last_used_at: number | null;
}

/** One-time device enrollment codes; only the SHA-256 of the code is stored. */
export interface DeviceEnrollmentsTable {
  code_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Nonces of signed authenticator requests seen while their timestamp is still acceptable. */
export interface DeviceNoncesTable {
  device_id: string;
  nonce: string;
  expires_at: number;
}

export type PushState = 'PENDING' | 'APPROVED' | 'REJECTED' | 'TIMEOUT';
/** Why a push is REJECTED: denied on the authenticator, or approved with a number the login page did not show. */
export type PushRefusal = 'denied' | 'number_mismatch';

export interface PushTransactionsTable {
  id: string;
  account_id: string;
  interaction_uid: string;
  /** The interaction uid while the push is PENDING, else null: unique, so one live push per login. */
  live_uid: string | null;
  /** The two-digit number shown on the login page. */
  number: number;
  /** JSON array: the number among decoys, in the order the authenticator shows them. */
  choices: string;
  state: PushState;
  client_name: string;
  ip: string;
  user_agent: string;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  device_id: string | null;
  /** When an approval finished a login; an approval completes one login only. */
  completed_at: number | null;
  /** Why a REJECTED push was refused; null otherwise (and for pushes refused before it was kept). */
  refusal: PushRefusal | null;
  /** When the user reported the refused push as not theirs; once. */
  reported_at: number | null;
}

/** Single-use recovery codes; only the SHA-256 of each (80-bit random) code is stored. */
export interface RecoveryCodesTable {
  id: string;
  account_id: string;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

/**
 * Revocations that outlive the row they revoke: JWT access tokens (by jti), grants and
 * subjects. `id` only grows and is the revocation feed's cursor; a row may be deleted once
 * `expires_at` has passed (every token it could concern has expired by then).
 */
export interface TokenRevocationsTable {
  id: Generated<number>;
  /** `token` (jti), `grant` (grant_id) or `subject` (tokens of `subject` issued before `issued_before`). */
  type: string;
  jti: string | null;
  grant_id: string | null;
  subject: string | null;
  issued_before: number | null;
  expires_at: number;
  created_at: number;
}

/** A WebAuthn credential (passkey or security key) of an account. */
export interface PasskeysTable {
  /** The credential id, base64url. */
  id: string;
  account_id: string;
  name: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The last signature counter seen (0 when the authenticator keeps none). */
  counter: number;
  /** JSON array of the transports the browser reported (usb, nfc, ble, internal, hybrid…). */
  transports: string;
  /** `singleDevice` (a hardware-bound key) or `multiDevice` (a synced passkey). */
  device_type: string;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

/** Outstanding WebAuthn challenges (base64url); a row is deleted when its ceremony uses it. */
export interface PasskeyChallengesTable {
  challenge: string;
  /** `registration` or `authentication`. */
  purpose: string;
  /** What the challenge was issued to: `account:<id>` (registration) or `interaction:<uid>`. */
  binding: string;
  expires_at: number;
}

/** Per API scope, the groups whose users may be granted it (policy/). */
export interface ScopePoliciesTable {
  scope: string;
  /** JSON array of group names, never empty. */
  groups: string;
  updated_at: number;
}

/** Every column of a scope policy row, in the order a statement that packs them into a list names them. */
export const SCOPE_POLICY_COLUMNS = ['scope', 'groups', 'updated_at'] as const satisfies readonly (keyof ScopePoliciesTable)[];

/**
 * The audit trail (audit/): one row per audit event. The identifiers a query filters on have
 * columns of their own; `fields` holds the event's other fields (JSON object of identifiers and
 * flags, never credentials). `username` is the name typed at a login step (lower-cased), for
 * events that may name no account.
 */
export interface AuditEventsTable {
  /** Only grows; breaks ties between events of the same millisecond. */
  id: Generated<number>;
  occurred_at: number;
  event: string;
  account_id: string | null;
  username: string | null;
  client_id: string | null;
  /** `operator`, `client` or `account` for administrative changes, else null. */
  actor_kind: string | null;
  actor: string | null;
  ip: string | null;
  fields: string;
  /** The request that caused the event (X-Request-Id); null outside a request. */
  request_id: string | null;
}

/** The browser and last use of an SSO session (account page), by oidc-provider's session uid. */
export interface SessionMetaTable {
  session_uid: string;
  account_id: string;
  /** A short label parsed from the User-Agent ("Chrome on Linux"). */
  browser: string;
  /** The client IP of the last use. */
  ip: string;
  created_at: number;
  last_used_at: number;
}

/** A one-time password-reset link: the SHA-256 (hex) of its token, never the token. */
export interface PasswordResetsTable {
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** What a user allowed a client (consent/consent-store.ts); space-separated lists. */
export interface ConsentsTable {
  account_id: string;
  client_id: string;
  scopes: string;
  claims: string;
  granted_at: number;
  updated_at: number;
}

/**
 * An upstream OpenID Connect or OAuth 2.0 provider users may sign in with (federation/). JSON
 * lists and objects as text; `client_secret_sealed` and `private_jwk_sealed` are SecretBox output.
 */
export interface IdentityProvidersTable {
  /** Stable key, in URLs (/login/federated/<slug>) and account links. */
  slug: string;
  display_name: string;
  /** `oidc` or `oauth2`. */
  kind: string;
  /** The preset it was made from (google, microsoft, github, oidc, oauth2), or null. */
  preset: string | null;
  enabled: number;
  /** oidc: the issuer whose discovery document is read. */
  issuer: string | null;
  /** oidc: accepted `iss` pattern where it differs by tenant (`{tenantid}` is the token's `tid`), or null: exactly `issuer`. */
  issuer_template: string | null;
  /** JSON array of tenant ids accepted with issuer_template, or null: any tenant. */
  allowed_tenants: string | null;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  userinfo_endpoint: string | null;
  /** oauth2 (GitHub): where the account's e-mail addresses and their verification are read. */
  emails_endpoint: string | null;
  client_id: string;
  client_secret_sealed: string | null;
  /** client_secret_basic, client_secret_post or private_key_jwt. */
  token_endpoint_auth_method: string;
  /** private_key_jwt: the private JWK (JSON) that signs client assertions. */
  private_jwk_sealed: string | null;
  /** JSON array. */
  scopes: string;
  use_userinfo: number;
  /** JSON object: which upstream claims give subject, username, e-mail, e-mail verified, name, groups. */
  claims: string;
  /** 1: the upstream's e-mail counts as verified even without an e-mail-verified claim. */
  trust_email: number;
  /** JSON array of `{ upstream, group }`. */
  group_mappings: string;
  /** `just_in_time` or `invited_only`. */
  provisioning: string;
  /** `trust_upstream` or `always_local`. */
  mfa_policy: string;
  /** JSON arrays: amr / acr values that count as a second factor under trust_upstream. */
  mfa_accepted_amr: string;
  mfa_accepted_acr: string;
  /** JSON array of lower-cased e-mail domains sent straight to this provider (home-realm discovery). */
  home_realm_domains: string;
  created_at: number;
  updated_at: number | null;
}

/** An upstream identity provider's user linked to a local account (federation/account-link-store.ts). */
export interface AccountLinksTable {
  /** The identity provider's slug. */
  provider: string;
  /** The upstream's stable user id (`sub`, or GitHub's numeric `id`). */
  subject: string;
  account_id: string;
  created_at: number;
  last_used_at: number | null;
}

/** A TOTP enrollment in progress and recovery codes not yet confirmed saved (accounts/totp-enrollment-store.ts). */
export interface TotpEnrollmentsTable {
  account_id: string;
  /** The pending TOTP secret, sealed; null once confirmed or when none is pending. */
  secret_sealed: string | null;
  secret_created_at: number | null;
  /** JSON array of recovery codes the user has not confirmed saving, sealed. */
  recovery_codes_sealed: string | null;
  recovery_codes_issued_at: number | null;
}

/** A change of e-mail address waiting for its link (accounts/email-change-store.ts). */
export interface EmailChangesTable {
  account_id: string;
  new_email: string;
  token_hash: string;
  expires_at: number;
  created_at: number;
}

/** The second factor a user prefers and the one that passed last (accounts/factor-preference-store.ts). */
export interface FactorPreferencesTable {
  account_id: string;
  /** `totp`, `push` or `passkey`; null: the one used last. */
  preferred: string | null;
  last_used: string | null;
  last_used_at: number | null;
}

export interface AuthSchema {
  accounts: AccountsTable;
  regulation_failures: RegulationFailuresTable;
  signing_keys: SigningKeysTable;
  clients: ClientsTable;
  oidc_payloads: OidcPayloadsTable;
  devices: DevicesTable;
  device_enrollments: DeviceEnrollmentsTable;
  device_nonces: DeviceNoncesTable;
  push_transactions: PushTransactionsTable;
  recovery_codes: RecoveryCodesTable;
  token_revocations: TokenRevocationsTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  scope_policies: ScopePoliciesTable;
  audit_events: AuditEventsTable;
  session_meta: SessionMetaTable;
  password_resets: PasswordResetsTable;
  consents: ConsentsTable;
  identity_providers: IdentityProvidersTable;
  account_links: AccountLinksTable;
  totp_enrollments: TotpEnrollmentsTable;
  factor_preferences: FactorPreferencesTable;
  email_changes: EmailChangesTable;
}
