import Router from '@koa/router';
import { authenticatorPage } from '../views/authenticator-page.ts';
import type { PushAnswerDeps } from '../push/push-answer.ts';
import { createAnswerHandler, createEventsHandler, createRegisterHandler, createRequestsHandler, type EventsDeps, type RegisterDeps, type RequestsDeps } from './api.ts';
import {
  createEnrollHandler,
  createRecoveryCodesHandler,
  createRemoveDeviceHandler,
  DEVICES_PATH,
  redirectDevicesPage,
  type EnrollDeps,
  type RecoveryCodesDeps,
  type RemoveDeviceDeps,
} from './manage.ts';

/** What the authenticator routes use: the union of their handlers' needs. */
export type AuthenticatorRoutesDeps = EnrollDeps & RemoveDeviceDeps & RecoveryCodesDeps & RegisterDeps & RequestsDeps & EventsDeps & PushAnswerDeps;

/** The web authenticator (PWA), its API, and the device actions of the account page. */
export function authenticatorRoutes(deps: AuthenticatorRoutesDeps): Router {
  const router = new Router();
  router.get('/authenticator', (ctx) => {
    ctx.type = 'html';
    ctx.body = authenticatorPage();
  });

  router.get(DEVICES_PATH, redirectDevicesPage);
  router.post(`${DEVICES_PATH}/enroll`, createEnrollHandler(deps));
  router.post(`${DEVICES_PATH}/remove`, createRemoveDeviceHandler(deps));
  router.post('/authenticator/recovery-codes', createRecoveryCodesHandler(deps));

  router.post('/authenticator/api/register', createRegisterHandler(deps));
  router.get('/authenticator/api/requests', createRequestsHandler(deps));
  router.get('/authenticator/api/events', createEventsHandler(deps));
  router.post('/authenticator/api/requests/:id/answer', createAnswerHandler(deps));
  return router;
}
