/**
 * Consent for registered clients is implicit (they are the operator's own apps): the grant is
 * created, or widened, to cover exactly what the current request asks for. Scopes outside the
 * provider's list are never granted because oidc-provider filters them before this runs, and
 * API scopes the access policy refuses the client or the user are left out (policy/).
 */
import type { KoaContextWithOIDC, Grant } from 'oidc-provider';
import type { ScopeGate } from '../policy/scope-policy.ts';

export function grantLoader(gate: ScopeGate) {
  return (ctx: KoaContextWithOIDC) => loadExistingGrant(ctx, gate);
}

async function loadExistingGrant(ctx: KoaContextWithOIDC, gate: ScopeGate): Promise<Grant | undefined> {
  const { oidc } = ctx;
  const client = oidc.client;
  const accountId = oidc.session?.accountId;
  if (!client || !accountId) return undefined;
  const grantId = (oidc.result?.consent as { grantId?: string } | undefined)?.grantId ?? oidc.session!.grantIdFor(client.clientId);
  let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  if (grant && grant.accountId !== accountId) grant = undefined;
  grant ??= new oidc.provider.Grant({ clientId: client.clientId, accountId });

  const requested = oidc.requestParamScopes;
  const oidcScopes = [...requested].filter((s) => !s.includes(':'));
  if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
  const claims = oidc.requestParamClaims;
  if (claims?.size) grant.addOIDCClaims([...claims]);
  for (const [indicator, server] of Object.entries(oidc.resourceServers ?? {})) {
    const allowed = new Set((server.scope ?? '').split(' '));
    const wanted = await gate.grantable([...requested].filter((s) => allowed.has(s)), client.clientId, accountId);
    if (wanted.length) grant.addResourceScope(indicator, wanted.join(' '));
  }
  await grant.save();
  return grant;
}
