/**
 * The JSON shapes of a user's SSO sessions and grants: /admin/v1/users/{id}/sessions and
 * /grants, and `authctl user sessions --json`, print exactly these. Rules:
 * - a session is shown without its id: the id is the value of the session cookie, and whoever
 *   reads it could use the session;
 * - instants the provider did not record are null;
 * - the schemas are the OpenAPI document's `Session` and `Grant` (admin/http/openapi.ts).
 */
import { z } from 'zod';
import type { UserGrant, UserSession } from '../../sessions/user-sessions.ts';
import { IsoTime, isoTime } from './json-time.ts';

export const SessionJson = z.object({
  signed_in_at: IsoTime.nullable(),
  last_used_at: IsoTime.nullable(),
  expires_at: IsoTime.nullable(),
  clients: z.array(z.object({ client_id: z.string(), grant_id: z.string().nullable() })),
});
export type SessionJson = z.output<typeof SessionJson>;

export const GrantJson = z.object({
  id: z.string(),
  client_id: z.string(),
  openid_scopes: z.array(z.string()),
  resources: z.array(z.object({ resource: z.string(), scopes: z.array(z.string()) })),
  created_at: IsoTime.nullable(),
  expires_at: IsoTime.nullable(),
});
export type GrantJson = z.output<typeof GrantJson>;

export function sessionJson(session: UserSession): SessionJson {
  return {
    signed_in_at: isoTime(session.signedInAt),
    last_used_at: isoTime(session.lastUsedAt),
    expires_at: isoTime(session.expiresAt),
    clients: session.clients.map((c) => ({ client_id: c.clientId, grant_id: c.grantId ?? null })),
  };
}

export function grantJson(grant: UserGrant): GrantJson {
  return {
    id: grant.id,
    client_id: grant.clientId,
    openid_scopes: grant.openidScopes,
    resources: Object.entries(grant.resources).map(([resource, scopes]) => ({ resource, scopes })),
    created_at: isoTime(grant.createdAt),
    expires_at: isoTime(grant.expiresAt),
  };
}
