import Router from '@koa/router';
import { createLoginOptionsHandler, createMfaOptionsHandler, type CeremonyOptionsDeps } from './passkey-options.ts';
import { PASSKEY_PATHS } from '../../views/passkey-paths.ts';
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
