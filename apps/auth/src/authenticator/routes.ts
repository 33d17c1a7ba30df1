import Router from '@koa/router';
import type { Context } from 'koa';
import { authenticatorPage } from '../views/authenticator-page.ts';
import type { PushAnswerDeps } from '../push/push-answer.ts';
import { createAnswerHandler, createEventsHandler, createRegisterHandler, createRequestsHandler, type EventsDeps, type RegisterDeps, type RequestsDeps } from './api.ts';
import { AUTHENTICATOR_SCRIPT, ICON, MANIFEST, SERVICE_WORKER } from './assets.ts';
import {
  createDevicesPageHandler,
  createEnrollHandler,
  createRecoveryCodesHandler,
  createRemoveDeviceHandler,
  DEVICES_PATH,
  type DevicesPageDeps,
  type EnrollDeps,
  type RecoveryCodesDeps,
  type RemoveDeviceDeps,
} from './manage.ts';

/** What the authenticator routes use: the union of their handlers' needs. */
export type AuthenticatorRoutesDeps = DevicesPageDeps & EnrollDeps & RemoveDeviceDeps & RecoveryCodesDeps & RegisterDeps & RequestsDeps & EventsDeps & PushAnswerDeps;

function asset(type: string, body: string, cache = 'public, max-age=3600') {
  return (ctx: Context) => {
    ctx.type = type;
    ctx.set('Cache-Control', cache);
    ctx.body = body;
  };
}

/** The web authenticator (PWA), its API, and the signed-in user's devices page. */
export function authenticatorRoutes(deps: AuthenticatorRoutesDeps): Router {
  const router = new Router();
  router.get('/authenticator', (ctx) => {
    ctx.type = 'html';
    ctx.body = authenticatorPage();
  });
  router.get('/authenticator/app.js', asset('application/javascript', AUTHENTICATOR_SCRIPT, 'no-cache'));
  router.get('/authenticator/sw.js', (ctx) => {
    asset('application/javascript', SERVICE_WORKER, 'no-cache')(ctx);
    // The worker controls /authenticator itself, which lies outside its default scope /authenticator/.
    ctx.set('Service-Worker-Allowed', '/authenticator');
  });
  router.get('/authenticator/manifest.webmanifest', asset('application/manifest+json', MANIFEST));
  router.get('/authenticator/icon.svg', asset('image/svg+xml', ICON));

  router.get(DEVICES_PATH, createDevicesPageHandler(deps));
  router.post(`${DEVICES_PATH}/enroll`, createEnrollHandler(deps));
  router.post(`${DEVICES_PATH}/remove`, createRemoveDeviceHandler(deps));
  router.post('/authenticator/recovery-codes', createRecoveryCodesHandler(deps));

  router.post('/authenticator/api/register', createRegisterHandler(deps));
  router.get('/authenticator/api/requests', createRequestsHandler(deps));
  router.get('/authenticator/api/events', createEventsHandler(deps));
  router.post('/authenticator/api/requests/:id/answer', createAnswerHandler(deps));
  return router;
}
