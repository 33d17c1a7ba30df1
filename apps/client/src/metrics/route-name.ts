/**
 * The `route` label of the relying party's request metrics: the declared patterns of its routes
 * (app.ts, health-routes.ts and views/static-assets.ts), never a requested path (item ids, codes and state stay out of
 * labels). Anything else is `other`. A new route is added here too.
 */
import { CLIENT_ROUTES } from '@gatehouse/contracts';
import { routeTable } from '@gatehouse/metrics';
import { CLIENT_STATIC_ASSETS } from '../views/static-assets.ts';
import { LANGUAGE_PATH } from '../i18n/locales.ts';

export const clientRouteName = routeTable([
  CLIENT_ROUTES.landing,
  CLIENT_ROUTES.callback,
  CLIENT_ROUTES.logout,
  CLIENT_ROUTES.signedOut,
  CLIENT_ROUTES.backchannelLogout,
  CLIENT_ROUTES.health,
  CLIENT_ROUTES.ready,
  '/items',
  '/items/:id/delete',
  LANGUAGE_PATH,
  ...CLIENT_STATIC_ASSETS.map((asset) => asset.path),
]);
