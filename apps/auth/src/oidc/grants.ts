/**
 * The grant an authorization request starts from (oidc-provider's loadExistingGrant). Rules:
 * - a first-party client (client metadata `first_party`, and the account page's own client)
 *   is granted what it asks for without a consent page: the grant is created, or widened, to
 *   cover the request; `prompt=consent` still shows the page (oidc-provider's consent prompt);
 * - any other client is granted only what the user allowed it before (consent/consent-store.ts):
 *   the requested scopes found in the user's consent record for it. What is missing makes
 *   oidc-provider's consent prompt ask (op_scopes_missing, rs_scopes_missing), and the consent
 *   page (interactions/consent.ts) adds it to the record; there are no claims to grant one by
 *   one (the `claims` parameter is not supported);
 * - scopes outside the provider's list are never granted because oidc-provider filters them
 *   before this runs, and API scopes the access policy refuses the client or the user are left
 *   out (policy/), consented or not;
 * - a grant of the session that belongs to another account, or (for a client that is not
 *   first-party) holds a scope the consent record does not, is never reused: a new
 *   grant starts from the record.
 */
import type { KoaContextWithOIDC, Grant } from 'oidc-provider';
import type { ScopeGate } from '../policy/scope-policy.ts';
import type { ConsentStore } from '../consent/consent-store.ts';
import { isFirstParty } from '../clients/first-party.ts';

export interface GrantDeps {
  gate: ScopeGate;
  consents: Pick<ConsentStore, 'find'>;
}

export function grantLoader(deps: GrantDeps) {
  return (ctx: KoaContextWithOIDC) => loadExistingGrant(ctx, deps);
}

async function loadExistingGrant(ctx: KoaContextWithOIDC, deps: GrantDeps): Promise<Grant | undefined> {
  const { oidc } = ctx;
  const client = oidc.client;
  const accountId = oidc.session?.accountId;
  if (!client || !accountId) return undefined;
  const grantId = (oidc.result?.consent as { grantId?: string } | undefined)?.grantId ?? oidc.session!.grantIdFor(client.clientId);
  let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  if (grant && (grant.accountId !== accountId || grant.clientId !== client.clientId)) grant = undefined;

  let allowed: (scope: string) => boolean = () => true;
  if (!isFirstParty(client)) {
    const consent = await deps.consents.find(accountId, client.clientId);
    const scopes = new Set(consent?.scopes);
    allowed = (scope) => scopes.has(scope);
    // A grant holding more than the record (revoked since, or of a client id registered again) is not reused.
    if (grant && !heldWithin(grant, allowed)) grant = undefined;
  }
  grant ??= new oidc.provider.Grant({ clientId: client.clientId, accountId });

  const requested = [...oidc.requestParamScopes].filter(allowed);
  const oidcScopes = requested.filter((s) => !s.includes(':'));
  if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
  for (const [indicator, server] of Object.entries(oidc.resourceServers ?? {})) {
    const offered = new Set((server.scope ?? '').split(' '));
    const wanted = await deps.gate.grantable(requested.filter((s) => offered.has(s)), client.clientId, accountId);
    if (wanted.length) grant.addResourceScope(indicator, wanted.join(' '));
  }
  await grant.save();
  return grant;
}

const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

/** Whether every scope the grant holds passes the check. */
function heldWithin(grant: Grant, scope: (s: string) => boolean): boolean {
  return [...words(grant.openid?.scope), ...Object.values(grant.resources ?? {}).flatMap(words)].every(scope);
}
