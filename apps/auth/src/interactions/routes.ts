import { pageLanguage } from '../i18n/page-language.ts';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import type { HandlerServices } from './deps.ts';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { responseFormat } from '@gatehouse/http';
import { loginPage } from '../views/login-page.ts';
import { clientName, loadInteraction, pageBranding, pendingLogin, redirectOrigin } from './interaction-state.ts';
import { renderMfaStep, type MfaStepDeps } from './mfa-step.ts';
import { createConsentHandler, type ConsentDeps } from './consent.ts';
import { CONSENT_PATH, renderConsentStep, type ConsentStepDeps } from './consent-step.ts';
import { createLoginHandler, type LoginDeps } from './login.ts';
import { createSelectAccountHandler, type SelectAccountDeps } from './select-account.ts';
import { renderSelectAccountStep, SELECT_ACCOUNT_PATH, type SelectAccountStepDeps } from './select-account-step.ts';
import { createMfaVerifyHandler, type MfaVerifyDeps } from './mfa-verify.ts';
import { ENROLLMENT_RESTART_PATH, RECOVERY_CODES_SAVED_PATH } from './mfa-step.ts';
import { createRecoveryCodesSavedHandler, type RecoveryCodesSavedDeps } from './mfa/recovery-codes-saved.ts';
import { createRestartEnrollmentHandler, type RestartEnrollmentDeps } from './mfa/restart-enrollment.ts';
import { createPushPollHandler, createPushStatusHandler, type PushPollDeps, type PushStatusDeps } from './push-poll.ts';
import { FEDERATED_CALLBACK_PATH } from '../federation/callback-url.ts';
import { FEDERATED_PATHS } from '../views/federated-pages.ts';
import { createStartFederatedHandler, type StartFederatedDeps } from './federated/start-federated.ts';
import { createFederatedCallbackHandler, type FederatedCallbackDeps } from './federated/federated-callback.ts';
import { createFederatedChoiceHandler } from './federated/federated-choice.ts';
import { createFederatedCancelHandler } from './federated/federated-cancel.ts';
import { loginProviders, type LoginProvidersDeps } from './federated/login-providers.ts';
import { forgotPasswordUrl } from './login/forgot-password-link.ts';
import { renderRecoveryCodesStep } from './recovery-codes-step.ts';
import { takeRefusal, type RefusedStep, type StepRefusal, type StepRefusalDeps } from './step-refusal.ts';
import { showLoginRefusal } from './login/login-refusal.ts';
import { showSignedInAlready } from './signed-in-already.ts';
import type { SignedInDeps } from './signed-in.ts';
import { isMfaMethod } from '../mfa/factor-order.ts';
import { AuthError } from '../errors/auth-error.ts';

const PUSH_POLL_PATH = '/mfa/push/:id';
const PUSH_STATUS_PATH = '/mfa/push/:id/status';
const FEDERATED_START_PATH = '/login/federated/:slug';

/** The patterns of the interaction steps served here besides the contract's (metrics labels, http/route-name.ts). */
export const INTERACTION_ROUTE_NAMES: readonly string[] = [
  CONSENT_PATH,
  SELECT_ACCOUNT_PATH,
  PUSH_POLL_PATH,
  PUSH_STATUS_PATH,
  ENROLLMENT_RESTART_PATH,
  RECOVERY_CODES_SAVED_PATH,
  FEDERATED_PATHS.choice,
  FEDERATED_PATHS.cancel,
  FEDERATED_START_PATH,
  FEDERATED_CALLBACK_PATH,
];

/** What the interaction routes use: the union of their handlers' needs. */
export type InteractionRoutesDeps = LoginDeps &
  MfaVerifyDeps &
  RecoveryCodesSavedDeps &
  RestartEnrollmentDeps &
  PushPollDeps &
  PushStatusDeps &
  ConsentDeps &
  ConsentStepDeps &
  SelectAccountDeps &
  SelectAccountStepDeps &
  StartFederatedDeps &
  FederatedCallbackDeps &
  LoginProvidersDeps &
  StepRefusalDeps &
  SignedInDeps;

/** Renders the password step of an interaction (HTML, or JSON for API clients). */
async function renderLogin(ctx: Context, provider: Provider, uid: string, deps: LoginProvidersDeps & Pick<HandlerServices, 'mailer'>): Promise<void> {
  const interaction = await provider.Interaction.find(uid);
  const name = interaction ? await clientName(provider, interaction) : '';
  ctx.status = 200;
  if (responseFormat(ctx) === 'json') {
    // A passkey sign-in from this page ends in a redirect to the client (CSP form-action).
    if (interaction) ctx.state.formActionOrigins = redirectOrigin(interaction);
    ctx.body = { status: 'login_required', interaction: uid, next: AUTH_ROUTES.login, client: name };
    return;
  }
  const providers = await loginProviders(deps);
  // A passkey sign-in ends in a redirect to the client, a provider's button in one to the
  // provider (CSP form-action).
  if (interaction) ctx.state.formActionOrigins = [...redirectOrigin(interaction), ...providers.origins];
  const client = interaction ? await pageBranding(ctx, provider, interaction) : { name };
  ctx.type = 'html';
  ctx.body = loginPage({ uid, client, providers: providers.buttons, homeRealm: providers.homeRealm, forgotPasswordUrl: forgotPasswordUrl(deps, uid), language: pageLanguage(ctx) });
}

/** The refusal kept for `step` (step-refusal.ts), its headers (Retry-After) set on the answer showing it. */
function refusalOf(ctx: Context, refusal: StepRefusal | undefined, step: RefusedStep): StepRefusal | undefined {
  if (refusal?.step !== step) return undefined;
  for (const [name, value] of Object.entries(refusal.error?.headers ?? {})) ctx.set(name, value);
  return refusal;
}

/**
 * Renders the step an interaction is at: the account selection for the `select_account` prompt,
 * the consent page for the `consent` prompt, the second factor once the password passed, the
 * password step otherwise (HTML, or JSON for API clients). A refusal of the step redirected here
 * (step-refusal.ts) is shown with its status, a notice with 200; one of a step the interaction has
 * left is not.
 */
export function interactionRenderer(deps: ConsentStepDeps & SelectAccountStepDeps & LoginProvidersDeps & Omit<MfaStepDeps, 'provider'> & Pick<HandlerServices, 'mailer'>) {
  return async function renderInteraction(ctx: Context, provider: Provider, uid: string, refusal?: StepRefusal): Promise<void> {
    const interaction = await provider.Interaction.find(uid);
    const json = responseFormat(ctx) === 'json';
    if (interaction?.prompt.name === 'select_account') {
      await renderSelectAccountStep(ctx, { ...deps, provider }, interaction, json, refusalOf(ctx, refusal, 'select_account')?.error);
      return;
    }
    if (interaction?.prompt.name === 'consent') {
      await renderConsentStep(ctx, { ...deps, provider }, interaction, json, refusalOf(ctx, refusal, 'consent')?.error);
      return;
    }
    // The password passed (the password step redirects here, post/redirect/get): the second factor.
    const pending = interaction && pendingLogin(interaction);
    // A factor passed while recovery codes wait to be saved (mfa/complete-login.ts): those codes.
    const unsaved = pending?.passed ? await deps.totpEnrollments.unsavedCodes(pending.accountId) : undefined;
    if (interaction && unsaved) {
      renderRecoveryCodesStep(ctx, { interaction, json, codes: unsaved });
      return;
    }
    if (interaction && pending) {
      const refused = refusalOf(ctx, refusal, 'mfa');
      const using = isMfaMethod(refused?.using) ? refused.using : undefined;
      await renderMfaStep(
        ctx,
        { ...deps, provider: () => provider },
        {
          interaction,
          pending,
          json,
          status: refused?.error?.status ?? 200,
          ...(refused?.error ? { error: { code: refused.error.code, message: refused.error.message, headers: refused.error.headers, detail: refused.error.detail } } : {}),
          ...(refused?.notice ? { notice: pageLanguage(ctx).t(refused.notice) } : {}),
          ...(using ? { using } : {}),
        },
      );
      return;
    }
    const refused = refusalOf(ctx, refusal, 'login');
    if (interaction && refused?.error) {
      await showLoginRefusal(ctx, { ...deps, provider: () => provider }, { interaction, json, ...(refused.username === undefined ? {} : { username: refused.username }) }, refused.error);
      return;
    }
    await renderLogin(ctx, provider, uid, deps);
  };
}

export function interactionRoutes(deps: InteractionRoutesDeps): Router {
  const renderInteraction = interactionRenderer(deps);
  const router = new Router();
  router.post(AUTH_ROUTES.login, createLoginHandler(deps));
  router.post(AUTH_ROUTES.mfaVerify, createMfaVerifyHandler(deps));
  router.post(ENROLLMENT_RESTART_PATH, createRestartEnrollmentHandler(deps));
  router.post(RECOVERY_CODES_SAVED_PATH, createRecoveryCodesSavedHandler(deps));
  router.get(PUSH_POLL_PATH, createPushPollHandler(deps));
  router.get(PUSH_STATUS_PATH, createPushStatusHandler(deps));
  router.post(CONSENT_PATH, createConsentHandler(deps));
  router.post(SELECT_ACCOUNT_PATH, createSelectAccountHandler(deps));
  // The fixed paths first: `choice` and `cancel` are not provider slugs.
  router.post(FEDERATED_PATHS.choice, createFederatedChoiceHandler(deps));
  router.post(FEDERATED_PATHS.cancel, createFederatedCancelHandler(deps));
  router.post(FEDERATED_START_PATH, createStartFederatedHandler(deps));
  router.get(FEDERATED_CALLBACK_PATH, createFederatedCallbackHandler(deps));
  router.get('/interaction/:uid', async (ctx) => {
    const provider = deps.provider();
    let interaction;
    try {
      interaction = await loadInteraction(provider, ctx, ctx.params.uid, ['select_account', 'login', 'consent']);
    } catch (error) {
      // Back from the app after signing in: the finished sign-in's page says the user is signed in.
      if (error instanceof AuthError && error.code === 'interaction_expired' && (await showSignedInAlready(ctx, deps, String(ctx.params.uid)))) return;
      throw error;
    }
    await renderInteraction(ctx, provider, interaction.uid, takeRefusal(ctx, deps, interaction.uid));
  });
  return router;
}
