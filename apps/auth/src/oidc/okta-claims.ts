/**
 * Okta-compatible copies of two RFC 9068 claims in every JWT access token, so code written for
 * Okta's access tokens reads Gatehouse's unchanged. Rules:
 * - `cid` is the `client_id` claim, unchanged;
 * - `scp` is the `scope` claim as an array of its scopes (absent when the token has no scope);
 * - the RFC 9068 claims stay: `cid` and `scp` are copies, never the only place of a value.
 */
export function oktaClaims(token: { clientId?: string; scope?: string }): { cid?: string; scp?: string[] } {
  const scopes = (token.scope ?? '').split(' ').filter(Boolean);
  return {
    ...(token.clientId ? { cid: token.clientId } : {}),
    ...(scopes.length ? { scp: scopes } : {}),
  };
}
