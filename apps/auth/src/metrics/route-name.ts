/**
 * The `route` label of the authorization server's request metrics: the declared patterns of
 * oidc-provider's endpoints and of our own routes, never a requested path (interaction uids,
 * push ids and tokens stay out of labels). Anything else is `other`. A new route is added here too.
 */
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { routeTable } from '@gatehouse/metrics';
import { DEVICES_PATH } from '../authenticator/manage.ts';
import { AUTH_STATIC_ASSETS } from '../views/static-assets.ts';
import { PASSKEY_PATHS } from '../passkeys/passkey-paths.ts';
import { ACCOUNT_ROUTES } from '../account/routes.ts';
import { CONSENT_PATH } from '../interactions/consent-step.ts';
import { SELECT_ACCOUNT_PATH } from '../interactions/select-account-step.ts';
import { ADMIN_ROUTE_PATTERNS } from '../admin/http/admin-paths.ts';

export const authRouteName = routeTable([
  AUTH_ROUTES.health,
  AUTH_ROUTES.ready,
  AUTH_ROUTES.discovery,
  AUTH_ROUTES.authorize,
  `${AUTH_ROUTES.authorize}/:uid`,
  AUTH_ROUTES.token,
  AUTH_ROUTES.jwks,
  AUTH_ROUTES.userinfo,
  AUTH_ROUTES.introspect,
  AUTH_ROUTES.revoke,
  AUTH_ROUTES.revocations,
  AUTH_ROUTES.logout,
  `${AUTH_ROUTES.logout}/confirm`,
  `${AUTH_ROUTES.logout}/success`,
  '/interaction/:uid',
  AUTH_ROUTES.login,
  AUTH_ROUTES.mfaVerify,
  CONSENT_PATH,
  SELECT_ACCOUNT_PATH,
  '/mfa/push/:id',
  '/mfa/push/:id/status',
  ...AUTH_STATIC_ASSETS.map((asset) => asset.path),
  '/authenticator',
  DEVICES_PATH,
  `${DEVICES_PATH}/enroll`,
  `${DEVICES_PATH}/remove`,
  '/authenticator/recovery-codes',
  '/authenticator/api/register',
  '/authenticator/api/requests',
  '/authenticator/api/events',
  '/authenticator/api/requests/:id/answer',
  ...Object.values(PASSKEY_PATHS),
  ...ACCOUNT_ROUTES,
  ...ADMIN_ROUTE_PATTERNS,
]);
