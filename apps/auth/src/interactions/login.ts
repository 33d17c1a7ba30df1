/**
 * POST /login: the password step. Rules:
 * - the interaction must be this browser's (signed cookie) and match the form's uid; username and
 *   password are required (login/read-login-request.ts);
 * - the attempt's regulation keys are the known device's, or the account's and the client IP's;
 *   a refused key set is answered 429 with Retry-After before the password is checked, even a
 *   correct one, and is not counted (login/regulate-password.ts);
 * - an unknown username and a wrong password cost the same and get the same 401; each failure
 *   counts, and the one that starts a lock is audited `login.lockout` once; a disabled account is
 *   403 (login/check-password.ts);
 * - success answers 200 with the second-factor page, with the TOTP enrollment and its recovery
 *   codes when the account has no second factor at all (login/prepare-second-factor.ts, mfa-step.ts); a browser's
 *   form post (a navigation: `Sec-Fetch-Dest: document`) gets 303 to `/interaction/<uid>`, which
 *   shows that page (post/redirect/get: Back and reload never post the password again); API
 *   clients and JSON keep the 200 of the wire contract;
 * - home-realm discovery first: a browser's username that is an e-mail of a provider's home-realm
 *   domain goes to that provider, its password unread (federated/home-realm.ts);
 * - any refusal once the interaction is known re-renders the login page with the refusal's
 *   status, message and code and the username as read; a browser's form post gets 303 to
 *   `/interaction/<uid>`, which shows that page once (step-refusal.ts: Back and reload never post
 *   the password again); an expired interaction is the error middleware's (login/login-refusal.ts,
 *   http/form-page.ts).
 */
import type { Context } from 'koa';
import { formPage } from '../http/form-page.ts';
import { checkPassword, type CheckPasswordDeps } from './login/check-password.ts';
import { showLoginRefusal } from './login/login-refusal.ts';
import { prepareSecondFactor, type PrepareSecondFactorDeps } from './login/prepare-second-factor.ts';
import { readCredentials, readLoginRequest, type ReadLoginRequestDeps } from './login/read-login-request.ts';
import { regulatePassword, type RegulatePasswordDeps } from './login/regulate-password.ts';
import { renderMfaStep, type MfaStepDeps } from './mfa-step.ts';
import { homeRealmProvider, type HomeRealmDeps } from './federated/home-realm.ts';
import { startFederatedSignIn, type StartFederatedDeps } from './federated/start-federated.ts';
import type { LoginRefusalDeps } from './login/login-refusal.ts';
import { interactionPath, redirectsAfterPost, seeOther } from './post-redirect-get.ts';
import { redirectRefusal, type StepRefusalDeps } from './step-refusal.ts';

export type LoginDeps = ReadLoginRequestDeps &
  RegulatePasswordDeps &
  CheckPasswordDeps &
  PrepareSecondFactorDeps &
  MfaStepDeps &
  HomeRealmDeps &
  StartFederatedDeps &
  LoginRefusalDeps &
  StepRefusalDeps;

export function createLoginHandler(deps: LoginDeps) {
  return async function login(ctx: Context): Promise<void> {
    let username = '';
    await formPage(ctx, {
      read: () => readLoginRequest(ctx, deps),
      async run({ body, interaction, json }) {
        const realm = await homeRealmProvider(deps, body);
        if (realm) {
          await startFederatedSignIn(ctx, deps, interaction, realm);
          return;
        }
        const credentials = readCredentials(body);
        username = credentials.username;
        const attempt = await regulatePassword(ctx, deps, credentials.username);
        const account = await checkPassword(ctx, deps, attempt, credentials.password);
        const pending = await prepareSecondFactor(deps, interaction, account);
        if (redirectsAfterPost(ctx, json)) {
          // Back and reload never post the password again.
          seeOther(ctx, interactionPath(interaction.uid));
          return;
        }
        await renderMfaStep(ctx, deps, { interaction, pending, json, status: 200 });
      },
      page: async (error, request) =>
        (error.code !== 'interaction_expired' && redirectRefusal(ctx, deps, { uid: request.interaction.uid, json: request.json }, { step: 'login', error, username })) ||
        showLoginRefusal(ctx, deps, { ...request, username }, error),
    });
  };
}
