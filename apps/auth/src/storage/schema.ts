/**
 * Tables of the authorization server. Conventions shared by every table:
 * - timestamps are epoch milliseconds in BIGINT columns;
 * - lists and objects are JSON text; booleans are INTEGER 0/1;
 * - columns holding secrets (`*_sealed`) contain SecretBox output, never plaintext.
 */
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
}

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
}

export interface OidcPayloadsTable {
  model: string;
  id: string;
  /** JSON object as handed to the adapter by oidc-provider. */
  payload: string;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

export interface AuthSchema {
  accounts: AccountsTable;
  regulation_failures: RegulationFailuresTable;
  signing_keys: SigningKeysTable;
  clients: ClientsTable;
  oidc_payloads: OidcPayloadsTable;
}
