import Router from '@koa/router';
import { pageLanguage } from '../i18n/page-language.ts';
import { authenticatorPage } from '../views/authenticator-page.ts';
import { MANIFEST_PATH, serveAuthenticatorManifest } from './manifest.ts';
import { ENROLL_DONE_PATH, ENROLL_STATUS_PATH } from '../views/devices-page.ts';
import { PASSKEY_PATHS } from '../views/passkey-paths.ts';
import { createRegisterHandler as createPasskeyRegisterHandler, createRegistrationOptionsHandler, createRemovePasskeyHandler, type ManagePasskeysDeps } from './manage-passkeys.ts';
import type { PushAnswerDeps } from '../push/push-answer.ts';
import { createAnswerHandler, createEventsHandler, createRegisterHandler, createReportHandler, createRequestsHandler, type EventsDeps, type RegisterDeps, type ReportDeps, type RequestsDeps } from './api.ts';
import {
  createEnrollDoneHandler,
  createEnrollHandler,
  createEnrollStatusHandler,
  createRecoveryCodesHandler,
  createRemoveDeviceHandler,
  DEVICES_PATH,
  redirectDevicesPage,
  type EnrollDeps,
  type EnrollStatusDeps,
  type RecoveryCodesDeps,
  type RemoveDeviceDeps,
} from './manage.ts';

const AUTHENTICATOR_PATHS = {
  app: '/authenticator',
  manifest: MANIFEST_PATH,
  devices: DEVICES_PATH,
  enroll: `${DEVICES_PATH}/enroll`,
  enrollStatus: ENROLL_STATUS_PATH,
  enrollDone: ENROLL_DONE_PATH,
  remove: `${DEVICES_PATH}/remove`,
  recoveryCodes: '/authenticator/recovery-codes',
  register: '/authenticator/api/register',
  requests: '/authenticator/api/requests',
  events: '/authenticator/api/events',
  answer: '/authenticator/api/requests/:id/answer',
  report: '/authenticator/api/requests/:id/report',
} as const;

/** The patterns these routes serve (metrics labels, http/route-name.ts). */
export const AUTHENTICATOR_ROUTE_NAMES: readonly string[] = Object.values(AUTHENTICATOR_PATHS);

/** What the authenticator routes use: the union of their handlers' needs. */
export type AuthenticatorRoutesDeps = EnrollDeps & EnrollStatusDeps & RemoveDeviceDeps & RecoveryCodesDeps & RegisterDeps & RequestsDeps & EventsDeps & PushAnswerDeps & ReportDeps;

/** The web authenticator (PWA), its API, and the device actions of the account page. */
export function authenticatorRoutes(deps: AuthenticatorRoutesDeps): Router {
  const router = new Router();
  router.get(AUTHENTICATOR_PATHS.app, (ctx) => {
    ctx.type = 'html';
    ctx.body = authenticatorPage(pageLanguage(ctx));
  });
  router.get(AUTHENTICATOR_PATHS.manifest, serveAuthenticatorManifest);

  router.get(AUTHENTICATOR_PATHS.devices, redirectDevicesPage);
  router.post(AUTHENTICATOR_PATHS.enroll, createEnrollHandler(deps));
  router.get(AUTHENTICATOR_PATHS.enrollStatus, createEnrollStatusHandler(deps));
  router.get(AUTHENTICATOR_PATHS.enrollDone, createEnrollDoneHandler(deps));
  router.post(AUTHENTICATOR_PATHS.remove, createRemoveDeviceHandler(deps));
  router.post(AUTHENTICATOR_PATHS.recoveryCodes, createRecoveryCodesHandler(deps));

  router.post(AUTHENTICATOR_PATHS.register, createRegisterHandler(deps));
  router.get(AUTHENTICATOR_PATHS.requests, createRequestsHandler(deps));
  router.get(AUTHENTICATOR_PATHS.events, createEventsHandler(deps));
  router.post(AUTHENTICATOR_PATHS.answer, createAnswerHandler(deps));
  router.post(AUTHENTICATOR_PATHS.report, createReportHandler(deps));
  return router;
}

/** WebAuthn on the signed-in devices page: registration options, registration, removal. */
export function passkeyDeviceRoutes(deps: ManagePasskeysDeps): Router {
  const router = new Router();
  router.post(PASSKEY_PATHS.registerOptions, createRegistrationOptionsHandler(deps));
  router.post(PASSKEY_PATHS.register, createPasskeyRegisterHandler(deps));
  router.post(PASSKEY_PATHS.remove, createRemovePasskeyHandler(deps));
  return router;
}
