/** Tables of the resource server. Timestamps are epoch milliseconds in BIGINT columns. */
export interface ApiSchema {
  api_items: {
    collection: string;
    id: number;
    /** The item's fields except `id`, as a JSON object. */
    data: string;
    created_at: number;
    updated_at: number;
  };
  /** DPoP proofs seen, by key thumbprint and jti, until their iat window ends (dpop-proof-store.ts). */
  api_dpop_proofs: {
    jkt: string;
    jti: string;
    expires_at: number;
  };
}
