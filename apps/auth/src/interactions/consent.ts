/**
 * POST /consent: the user's answer on the consent page (consent-step.ts). Rules, in order:
 * - same-origin posts only (403 forbidden): with the SameSite=Lax interaction cookie and the
 *   form's `uid`, this is the form's CSRF protection;
 * - the interaction must be this browser's, at its consent step, and match the form's `uid`
 *   (else 400 interaction_expired);
 * - `decision` is `allow` or `deny` (else 400 invalid_request); a browser's form post gets 303
 *   to `/interaction/<uid>`, which shows that refusal once on the step (step-refusal.ts: Back and
 *   reload never post the form again); API clients and JSON get the 400 itself;
 * - deny: audited `consent.denied`; the authorization ends with `access_denied`, returned to the
 *   client's redirect URI with its `state` and `iss` (oidc-provider's resume);
 * - allow: audited `consent.granted`; for a client that is not first-party the scopes shown
 *   are added to the user's consent record for it (consent/consent-store.ts), from which
 *   the grant is then built (oidc/grants.ts); a first-party client (asked with prompt=consent)
 *   is granted what it asks for anyway, so nothing is recorded; the authorization resumes with
 *   a code;
 * - either way oidc-provider's resume runs inside this request: the answer is its redirect to
 *   the client (302); a JSON caller gets 302 `{ status: 'complete', redirect_to }`.
 */
import type { Context, Next } from 'koa';
import { requireSameOrigin, type OriginDeps } from '../http/same-origin.ts';
import { invalidRequest } from '../errors/auth-error.ts';
import { readBody } from '../http/read-body.ts';
import { formPage } from '../http/form-page.ts';
import { redirectRefusal, type StepRefusalDeps } from './step-refusal.ts';
import { loadInteraction, redirectOrigin } from './interaction-state.ts';
import { isFirstParty } from '../clients/first-party.ts';
import { consentRequest } from './consent-step.ts';
import { resumeAuthorization } from './mfa/complete-login.ts';
import type { HandlerServices } from './deps.ts';

export type ConsentDeps = OriginDeps & StepRefusalDeps & Pick<HandlerServices, 'provider' | 'consents' | 'audit'>;

export function createConsentHandler(deps: ConsentDeps) {
  return async function consent(ctx: Context, next: Next): Promise<void> {
    const provider = deps.provider();
    await formPage(ctx, {
      async read() {
        requireSameOrigin(ctx, deps);
        const body = await readBody(ctx);
        return { body, interaction: await loadInteraction(provider, ctx, body.fields.uid, ['consent']) };
      },
      async run({ body, interaction }) {
        const decision = body.fields.decision;
        if (decision !== 'allow' && decision !== 'deny') throw invalidRequest('Field "decision" must be "allow" or "deny".', 'invalid_request.consentDecision');
        const request = await consentRequest(provider, interaction);
        let returnTo: string;
        if (decision === 'deny') {
          deps.audit.record('consent.denied', { account_id: request.accountId, client_id: request.clientId, ip: ctx.ip });
          returnTo = await provider.interactionResult(ctx.req, ctx.res, { error: 'access_denied', error_description: 'The user did not allow the application to access their account.' });
        } else {
          const client = await provider.Client.find(request.clientId);
          if (client && !isFirstParty(client)) await deps.consents.allow(request.accountId, request.clientId, { scopes: request.scopes });
          deps.audit.record('consent.granted', { account_id: request.accountId, client_id: request.clientId, ip: ctx.ip, scopes: request.scopes.join(' ') });
          // Merged with the login of this authorization (prompt=login consent, max_age), so the
          // resume does not ask for it again.
          returnTo = await provider.interactionResult(ctx.req, ctx.res, { consent: {} }, { mergeWithLastSubmission: true });
        }
        await resumeAuthorization(ctx, next, returnTo, redirectOrigin(interaction), body.json);
      },
      page: async (error, { body, interaction }) => redirectRefusal(ctx, deps, { uid: interaction.uid, json: body.json }, { step: 'consent', error }),
    });
  };
}
