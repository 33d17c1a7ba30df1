import Router from '@koa/router';
import { createLoginOptionsHandler, createMfaOptionsHandler, type CeremonyOptionsDeps } from './ceremony-options.ts';
import { createRegisterHandler, createRegistrationOptionsHandler, createRemovePasskeyHandler, type ManagePasskeysDeps } from './manage-passkeys.ts';
import { PASSKEY_PATHS } from './passkey-paths.ts';
import { createPasswordlessLoginHandler, type PasswordlessLoginDeps } from './passwordless-login.ts';

/** What the passkey routes use: the union of their handlers' needs. */
export type PasskeyRoutesDeps = CeremonyOptionsDeps & PasswordlessLoginDeps & ManagePasskeysDeps;

/** WebAuthn: passwordless sign-in, second-factor options, and the devices page's passkeys. */
export function passkeyRoutes(deps: PasskeyRoutesDeps): Router {
  const router = new Router();
  router.post(PASSKEY_PATHS.loginOptions, createLoginOptionsHandler(deps));
  router.post(PASSKEY_PATHS.login, createPasswordlessLoginHandler(deps));
  router.post(PASSKEY_PATHS.mfaOptions, createMfaOptionsHandler(deps));
  router.post(PASSKEY_PATHS.registerOptions, createRegistrationOptionsHandler(deps));
  router.post(PASSKEY_PATHS.register, createRegisterHandler(deps));
  router.post(PASSKEY_PATHS.remove, createRemovePasskeyHandler(deps));
  return router;
}
