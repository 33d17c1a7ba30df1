/** Tables of the relying party (see migrations.ts). Timestamps are epoch milliseconds. */
export interface ClientSessionsTable {
  /** SHA-256 of the session key in the cookie, so a database read yields no usable cookie. */
  id: string;
  client_id: string;
  data: string;
  expires_at: number;
  updated_at: number;
  /** The signed-in user's `sub` and the ID token's `sid` (back-channel logout); null before a sign-in. */
  sub?: string | null;
  sid?: string | null;
}

export interface ClientLogoutTokensTable {
  /** A logout token's `jti`, kept until the token expires (replay detection). */
  jti: string;
  client_id: string;
  expires_at: number;
}

export interface ClientLoginsTable {
  /** The `state` sent to the authorization server. */
  state: string;
  client_id: string;
  /** SHA-256 of this browser's login cookie: the callback must come from the same browser. */
  browser: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  /** 1 for a silent (prompt=none) session check. */
  silent: number;
  expires_at: number;
}

export interface ClientSchema {
  client_sessions: ClientSessionsTable;
  client_logins: ClientLoginsTable;
  client_logout_tokens: ClientLogoutTokensTable;
}
