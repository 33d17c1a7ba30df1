/** Tables of the relying party (see migrations.ts). Timestamps are epoch milliseconds. */
export interface ClientSessionsTable {
  /** SHA-256 of the session key in the cookie, so a database read yields no usable cookie. */
  id: string;
  client_id: string;
  data: string;
  expires_at: number;
  updated_at: number;
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
}
