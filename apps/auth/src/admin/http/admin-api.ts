/**
 * The admin API at /admin/v1 (docs/spec.md, admin API): the router (admin-router.ts) with the
 * bearer check (bearer.ts), the OpenAPI document and one route file per resource. Mounted in the
 * provider's middleware chain before the interaction routes (app.ts), so it runs inside the
 * request id, access log and security headers, and answers everything under /admin/v1 itself.
 */
import type { AccountStore } from '../../accounts/account-store.ts';
import type { Logger } from '../../logging/logger.ts';
import type { JwtAccessTokens } from '../../oidc/jwt-access-tokens.ts';
import type { ScopePolicyService } from '../../policy/scope-policy-service.ts';
import { adminAudience } from '../../policy/admin-scopes.ts';
import type { KeyAdmin } from '../key-admin.ts';
import type { UserAdmin } from '../user-admin.ts';
import { createAdminRouter, type AdminRouter } from './admin-router.ts';
import { createBearerCheck } from './bearer.ts';
import { adminOpenApi } from './openapi.ts';
import { addKeyRoutes } from './keys-routes.ts';
import { addUserRoutes } from './users-routes.ts';

export interface AdminApiDeps {
  issuer: string;
  tokens: Pick<JwtAccessTokens, 'decode' | 'isActive'>;
  accounts: Pick<AccountStore, 'findById'>;
  policies: Pick<ScopePolicyService, 'clientScopes'>;
  users: UserAdmin;
  keys: KeyAdmin;
  logger: Logger;
}

export function createAdminApi(deps: AdminApiDeps): AdminRouter {
  const bearer = createBearerCheck({ tokens: deps.tokens, accounts: deps.accounts, policies: deps.policies, audience: adminAudience(deps.issuer) });
  const router = createAdminRouter({ bearer, logger: deps.logger });
  const document = adminOpenApi(deps.issuer);
  router.add({
    method: 'GET',
    path: '/openapi.json',
    scope: null,
    async handle() {
      return { status: 200, body: document };
    },
  });
  addUserRoutes(router, { users: deps.users });
  addKeyRoutes(router, { keys: deps.keys });
  return router;
}
