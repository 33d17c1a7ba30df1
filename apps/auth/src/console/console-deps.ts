/**
 * What the admin console's sections are built on: the same service layer as the admin API
 * (/admin/v1) and authctl (admin/*.ts, policy/scope-policy-service.ts, the audit trail), plus the
 * read-only stores a page lists from. A section takes the `Pick` it uses. The console holds no
 * logic of its own: a missing operation is added to the service, for every front end.
 */
import type { AuditTrail } from '../audit/audit-trail.ts';
import type { ClientAdmin } from '../admin/client-admin.ts';
import type { KeyAdmin } from '../admin/key-admin.ts';
import type { AdminOverview } from '../admin/overview.ts';
import type { IssuedPasswordReset } from '../admin/password-reset.ts';
import type { UserAdmin } from '../admin/user-admin.ts';
import type { Actor } from '../audit/actor.ts';
import type { ScopePolicyService } from '../policy/scope-policy-service.ts';
import type { ScopeAdmin } from '../admin/scope-admin.ts';
import type { HandlerServices } from '../interactions/deps.ts';

export interface ConsoleDeps extends Pick<HandlerServices, 'config' | 'clock' | 'logger' | 'devices' | 'passkeys' | 'recoveryCodes' | 'sessionMeta' | 'consents' | 'accounts'> {
  users: UserAdmin;
  /** One-time password-reset links (admin/password-reset.ts). */
  issuePasswordReset(actor: Actor, username: string): Promise<IssuedPasswordReset>;
  clients: ClientAdmin;
  keys: KeyAdmin;
  policies: ScopePolicyService;
  /** The access policy's changes, audited with the admin (admin/scope-admin.ts). */
  scopes: ScopeAdmin;
  /** The stored audit trail (audit/audit-trail.ts). */
  auditTrail: AuditTrail;
  /** Writes the audit events still queued, before the trail is read. */
  flushAudit(): Promise<void>;
  overview: AdminOverview;
}
