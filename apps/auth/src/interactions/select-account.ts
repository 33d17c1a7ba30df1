/**
 * POST /select-account: the user's answer on the account-selection page (select-account-step.ts).
 * Rules, in order:
 * - same-origin posts only (403 forbidden): with the SameSite=Lax interaction cookie and the
 *   form's `uid`, this is the form's CSRF protection;
 * - the interaction must be this browser's, at its select_account step, and match the form's
 *   `uid` (else 400 interaction_expired);
 * - `choice` is `continue` or `another` (else 400 invalid_request); a browser's form post gets
 *   303 to `/interaction/<uid>`, which shows that refusal once on the step (step-refusal.ts: Back
 *   and reload never post the form again); API clients and JSON get the 400 itself;
 * - either is audited `login.account_selected` with the session's account and the choice;
 * - continue: the authorization resumes as the session's account (a code, or the next step:
 *   a login that max_age or prompt=login asks for, the consent);
 * - another: the authorization resumes into the login (oidc/interaction-policy.ts
 *   `another_account`), answered with the login step itself; once it completes, oidc-provider
 *   signs the previous account out of this browser (its logout, which ends that session's
 *   grants) and the session holds the new account;
 * - oidc-provider's resume runs inside this request: the answer is its redirect to the client
 *   (302) or the next step (200); a JSON caller gets 302 `{ status: 'complete', redirect_to }`
 *   or the next step as JSON.
 */
import type { Context, Next } from 'koa';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { invalidRequest } from '../errors/auth-error.ts';
import { readBody } from '../http/read-body.ts';
import { formPage } from '../http/form-page.ts';
import { redirectRefusal, type StepRefusalDeps } from './step-refusal.ts';
import type { SelectAccountResult } from '../views/select-account-page.ts';
import { loadInteraction, redirectOrigin } from './interaction-state.ts';
import { resumeAuthorization } from './mfa/complete-login.ts';
import { SELECT_ACCOUNT_CHOICES } from './select-account-step.ts';
import type { HandlerServices } from './deps.ts';

export type SelectAccountDeps = OriginDeps & StepRefusalDeps & Pick<HandlerServices, 'provider' | 'audit'>;

const isChoice = (value: unknown): value is (typeof SELECT_ACCOUNT_CHOICES)[number] => (SELECT_ACCOUNT_CHOICES as readonly unknown[]).includes(value);

export function createSelectAccountHandler(deps: SelectAccountDeps) {
  return async function selectAccount(ctx: Context, next: Next): Promise<void> {
    const provider = deps.provider();
    await formPage(ctx, {
      async read() {
        requireSameOrigin(ctx, deps);
        const body = await readBody(ctx);
        return { body, interaction: await loadInteraction(provider, ctx, body.fields.uid, ['select_account']) };
      },
      async run({ body, interaction }) {
        const choice = body.fields.choice;
        if (!isChoice(choice)) throw invalidRequest('Field "choice" must be "continue" or "another".', 'invalid_request.selectAccountChoice');
        deps.audit.record('login.account_selected', {
          account_id: String(interaction.session?.accountId ?? ''),
          client_id: String(interaction.params.client_id ?? ''),
          ip: ctx.ip,
          choice,
        });
        const result: SelectAccountResult = choice === 'another' ? { another: true } : {};
        const returnTo = await provider.interactionResult(ctx.req, ctx.res, { select_account: result }, { mergeWithLastSubmission: true });
        await resumeAuthorization(ctx, next, returnTo, redirectOrigin(interaction), body.json);
      },
      page: async (error, { body, interaction }) => redirectRefusal(ctx, deps, { uid: interaction.uid, json: body.json }, { step: 'select_account', error }),
    });
  };
}
