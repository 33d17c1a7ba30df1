import Router from '@koa/router';
import { createLoginOptionsHandler, createMfaOptionsHandler, type CeremonyOptionsDeps } from './ceremony-options.ts';
import { createRegisterHandler, createRegistrationOptionsHandler, createRemovePasskeyHandler, type ManagePasskeysDeps } from './manage-passkeys.ts';
import { PASSKEY_PATHS } from '../views/passkey-paths.ts';
import { createPasswordlessLoginHandler, type PasswordlessLoginDeps } from './passwordless-login.ts';

/** What the passkey sign-in routes use: the union of their handlers' needs. */
export type PasskeySignInRoutesDeps = CeremonyOptionsDeps & PasswordlessLoginDeps;

/**
 * WebAuthn in an interaction: passwordless sign-in and second-factor options. The sign-in
 * resumes the authorization inside its request, so these run in oidc-provider's stack (app.ts).
 */
export function passkeySignInRoutes(deps: PasskeySignInRoutesDeps): Router {
  const router = new Router();
  router.post(PASSKEY_PATHS.loginOptions, createLoginOptionsHandler(deps));
  router.post(PASSKEY_PATHS.login, createPasswordlessLoginHandler(deps));
  router.post(PASSKEY_PATHS.mfaOptions, createMfaOptionsHandler(deps));
  return router;
}

/** WebAuthn on the signed-in devices page: registration options, registration, removal. */
export function passkeyDeviceRoutes(deps: ManagePasskeysDeps): Router {
  const router = new Router();
  router.post(PASSKEY_PATHS.registerOptions, createRegistrationOptionsHandler(deps));
  router.post(PASSKEY_PATHS.register, createRegisterHandler(deps));
  router.post(PASSKEY_PATHS.remove, createRemovePasskeyHandler(deps));
  return router;
}
