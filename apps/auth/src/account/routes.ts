import Router from '@koa/router';
import { ACCOUNT_CALLBACK_PATH, ACCOUNT_PATH } from '../clients/account-client.ts';
import { accountCallback, createAccountPageHandler, createSectionHandler, type AccountViewDeps } from './account-view.ts';
import { ACCOUNT_CONFIRM_PATHS, SECTION_PATHS } from '../views/account-paths.ts';
import { confirmPages, type ConfirmActionsDeps } from './confirm-actions.ts';
import { createChangeEmailHandler, createVerifyEmailHandler, EMAIL_CHANGE_PATH, EMAIL_VERIFY_ROUTE, type ChangeEmailDeps } from './change-email.ts';
import { createEndSessionHandler, END_SESSION_PATH, type EndSessionDeps } from './end-session.ts';
import { createChangePasswordHandler, type ChangePasswordDeps } from './change-password.ts';
import {
  createPasswordResetFormHandler,
  createPasswordResetHandler,
  createPasswordResetPasskeyOptionsHandler,
  createResetPushHandler,
  createResetPushStatusHandler,
  PASSWORD_RESET_PASSKEY_ROUTE,
  PASSWORD_RESET_PUSH_ROUTE,
  PASSWORD_RESET_PUSH_STATUS_ROUTE,
  PASSWORD_RESET_ROUTE,
  type PasswordResetPageDeps,
} from './password-reset-page.ts';
import { createCancelTotpHandler, createConfirmTotpHandler, createStartTotpHandler, createTotpEnrollmentPageHandler, TOTP_ENROLLMENT_PATH, type ReenrollTotpDeps } from './reenroll-totp.ts';
import { createSignOutOthersHandler, type SignOutOthersDeps } from './sign-out-others.ts';
import { CONNECTED_APPS_REVOKE_PATH, createRevokeAppHandler, type RevokeAppDeps } from './connected-apps.ts';
import { createForgotPasswordFormHandler, createForgotPasswordHandler, FORGOT_PASSWORD_PATH, type ForgotPasswordDeps } from './forgot-password.ts';
import { createRemoveLinkHandler, LINKED_PROVIDERS_REMOVE_PATH, type RemoveLinkDeps } from './remove-link.ts';
import { createPreferredFactorHandler, type PreferredFactorDeps } from './preferred-factor.ts';
import { PREFERRED_FACTOR_PATH } from '../views/preferred-factor-section.ts';

/** What the account routes use: the union of their handlers' needs. */
export type AccountRoutesDeps = AccountViewDeps & ChangePasswordDeps & ReenrollTotpDeps & SignOutOthersDeps & RevokeAppDeps & RemoveLinkDeps & PasswordResetPageDeps & ForgotPasswordDeps & PreferredFactorDeps & ConfirmActionsDeps & EndSessionDeps & ChangeEmailDeps;

/** Paths of the account page, for the metrics route table. */
export const ACCOUNT_ROUTES = [
  ACCOUNT_PATH,
  SECTION_PATHS.security,
  SECTION_PATHS.sessions,
  SECTION_PATHS.apps,
  ACCOUNT_CALLBACK_PATH,
  `${ACCOUNT_PATH}/password`,
  `${ACCOUNT_PATH}/totp`,
  `${ACCOUNT_PATH}/totp/confirm`,
  `${ACCOUNT_PATH}/totp/cancel`,
  TOTP_ENROLLMENT_PATH,
  ...Object.values(ACCOUNT_CONFIRM_PATHS).filter((path) => path !== ACCOUNT_CONFIRM_PATHS.signOutOthers && path !== END_SESSION_PATH && path !== CONNECTED_APPS_REVOKE_PATH),
  `${ACCOUNT_PATH}/sessions/sign-out-others`,
  END_SESSION_PATH,
  EMAIL_CHANGE_PATH,
  EMAIL_VERIFY_ROUTE,
  CONNECTED_APPS_REVOKE_PATH,
  LINKED_PROVIDERS_REMOVE_PATH,
  PREFERRED_FACTOR_PATH,
  PASSWORD_RESET_ROUTE,
  PASSWORD_RESET_PASSKEY_ROUTE,
  PASSWORD_RESET_PUSH_ROUTE,
  PASSWORD_RESET_PUSH_STATUS_ROUTE,
  FORGOT_PASSWORD_PATH,
] as const;

/** The self-service account page (/account) and the pages of password-reset links. */
export function accountRoutes(deps: AccountRoutesDeps): Router {
  const router = new Router();
  router.get(ACCOUNT_PATH, createAccountPageHandler(deps));
  router.get(SECTION_PATHS.security, createSectionHandler(deps, 'security'));
  router.get(SECTION_PATHS.sessions, createSectionHandler(deps, 'sessions'));
  router.get(SECTION_PATHS.apps, createSectionHandler(deps, 'apps'));
  router.get(ACCOUNT_CALLBACK_PATH, accountCallback);
  router.post(`${ACCOUNT_PATH}/password`, createChangePasswordHandler(deps));
  router.post(`${ACCOUNT_PATH}/totp`, createStartTotpHandler(deps));
  router.post(`${ACCOUNT_PATH}/totp/confirm`, createConfirmTotpHandler(deps));
  router.post(`${ACCOUNT_PATH}/totp/cancel`, createCancelTotpHandler(deps));
  router.get(TOTP_ENROLLMENT_PATH, createTotpEnrollmentPageHandler(deps));
  router.post(`${ACCOUNT_PATH}/sessions/sign-out-others`, createSignOutOthersHandler(deps));
  for (const [path, handler] of confirmPages(deps)) router.get(path, handler);
  router.post(END_SESSION_PATH, createEndSessionHandler(deps));
  router.post(EMAIL_CHANGE_PATH, createChangeEmailHandler(deps));
  router.get(EMAIL_VERIFY_ROUTE, createVerifyEmailHandler(deps));
  router.post(CONNECTED_APPS_REVOKE_PATH, createRevokeAppHandler(deps));
  router.post(LINKED_PROVIDERS_REMOVE_PATH, createRemoveLinkHandler(deps));
  router.post(PREFERRED_FACTOR_PATH, createPreferredFactorHandler(deps));
  router.get(FORGOT_PASSWORD_PATH, createForgotPasswordFormHandler(deps));
  router.post(FORGOT_PASSWORD_PATH, createForgotPasswordHandler(deps));
  router.get(PASSWORD_RESET_ROUTE, createPasswordResetFormHandler(deps));
  router.post(PASSWORD_RESET_ROUTE, createPasswordResetHandler(deps));
  router.post(PASSWORD_RESET_PASSKEY_ROUTE, createPasswordResetPasskeyOptionsHandler(deps));
  router.post(PASSWORD_RESET_PUSH_ROUTE, createResetPushHandler(deps));
  router.get(PASSWORD_RESET_PUSH_STATUS_ROUTE, createResetPushStatusHandler(deps));
  return router;
}
