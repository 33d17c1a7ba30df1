/**
 * The admin API at /admin/v1 (docs/spec.md, admin API): the router (admin-router.ts) with the
 * bearer check (bearer.ts), the OpenAPI document and one route file per resource. Mounted first
 * among the app's own routes, in front of oidc-provider (app.ts), so it runs inside the request
 * id, access log and security headers, and answers everything under /admin/v1 itself.
 */
import { z } from 'zod';
import type { AccountStore } from '../../accounts/account-store.ts';
import type { AuditTrail } from '../../audit/audit-trail.ts';
import type { Logger } from '../../logging/logger.ts';
import type { ScopePolicyService } from '../../policy/scope-policy-service.ts';
import { adminAudience } from '../../policy/admin-scopes.ts';
import type { ClientAdmin } from '../client-admin.ts';
import type { IdentityProviderService } from '../../federation/identity-provider-service.ts';
import type { KeyAdmin } from '../key-admin.ts';
import type { UserAdmin } from '../user-admin.ts';
import type { UserRoutesDeps } from './users-routes.ts';
import { createAdminRouter, type AdminRouter } from './admin-router.ts';
import { createBearerCheck, type AccessTokenVerifier } from './bearer.ts';
import { adminOpenApi } from './openapi.ts';
import { addClientRoutes } from './clients-routes.ts';
import { addKeyRoutes } from './keys-routes.ts';
import { addUserRoutes } from './users-routes.ts';
import { addAuditRoutes } from './audit-routes.ts';
import { addIdentityProviderRoutes } from './identity-providers-routes.ts';

export interface AdminApiDeps {
  issuer: string;
  tokens: AccessTokenVerifier;
  accounts: Pick<AccountStore, 'findById'>;
  policies: Pick<ScopePolicyService, 'clientScopes'>;
  users: UserAdmin;
  /** Password-reset links (admin/password-reset.ts), as `authctl user reset-link`. */
  issuePasswordReset: UserRoutesDeps['issuePasswordReset'];
  keys: KeyAdmin;
  /** The stored audit trail (audit/audit-trail.ts). */
  auditTrail: AuditTrail;
  /** Writes this instance's queued audit events (audit/audit-sink.ts) before the trail is read. */
  flushAudit?: () => Promise<void>;
  /** For `since` / `until` given as a duration back from now. */
  clock: () => number;
  clients: ClientAdmin;
  /** The upstream identity providers (federation/identity-provider-service.ts), as `authctl idp`. */
  identityProviders: IdentityProviderService;
  logger: Logger;
}

export function createAdminApi(deps: AdminApiDeps): AdminRouter {
  const bearer = createBearerCheck({ tokens: deps.tokens, accounts: deps.accounts, policies: deps.policies, audience: adminAudience(deps.issuer) });
  const router = createAdminRouter({ bearer, logger: deps.logger });
  let document: Record<string, unknown> | undefined;
  router.add({
    method: 'GET',
    path: '/openapi.json',
    scope: null,
    summary: 'This document',
    operationId: 'openapi',
    responses: { 200: { description: 'The OpenAPI document', body: z.looseObject({}) } },
    async handle() {
      // Built from every route's declaration, once they are all added (openapi.ts).
      document ??= adminOpenApi(deps.issuer, router.routes);
      return { status: 200, body: document };
    },
  });
  addUserRoutes(router, { users: deps.users, issuePasswordReset: deps.issuePasswordReset });
  addKeyRoutes(router, { keys: deps.keys });
  addAuditRoutes(router, { trail: deps.auditTrail, clock: deps.clock, ...(deps.flushAudit ? { flush: deps.flushAudit } : {}) });
  addClientRoutes(router, { clients: deps.clients });
  addIdentityProviderRoutes(router, { identityProviders: deps.identityProviders });
  return router;
}
