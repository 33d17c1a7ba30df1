/**
 * POST /mfa/enrollment/restart: "Start over" on the TOTP enrollment page. Rules:
 * - only on this browser's interaction, past its password step (read-mfa-request.ts);
 * - while the account is enrolling, its pending secret is replaced by a new one, deliberately
 *   (the only way the key changes), and the page shows the new key and QR code with a notice to
 *   remove the old entry from the authenticator app; audited `login.mfa.enrollment_restarted`;
 * - an account whose enrollment was confirmed meanwhile just gets the challenge again;
 * - a browser's form post gets 303 to `/interaction/<uid>`, which shows that page, the notice once
 *   (step-refusal.ts: Back and reload never post "Start over" again, so the key changes only when
 *   the button is pressed); API clients and JSON get the page or body itself (200).
 */
import { pageLanguage } from '../../i18n/page-language.ts';
import type { Context } from 'koa';
import type { HandlerServices } from '../deps.ts';
import { renderMfaStep, type MfaStepDeps } from '../mfa-step.ts';
import { readMfaRequest, type ReadMfaRequestDeps } from './read-mfa-request.ts';
import { redirectNotice, type StepRefusalDeps } from '../step-refusal.ts';
import { interactionPath, redirectsAfterPost, seeOther } from '../post-redirect-get.ts';

export type RestartEnrollmentDeps = ReadMfaRequestDeps & MfaStepDeps & StepRefusalDeps & Pick<HandlerServices, 'totp' | 'totpEnrollments' | 'audit'>;

export function createRestartEnrollmentHandler(deps: RestartEnrollmentDeps) {
  return async function restartEnrollment(ctx: Context): Promise<void> {
    const { interaction, pending, json } = await readMfaRequest(ctx, deps);
    const enrolling = pending.enrolling && (await deps.totpEnrollments.pendingSecret(pending.accountId)) !== undefined;
    if (enrolling) {
      await deps.totpEnrollments.startSecret(pending.accountId, deps.totp.generateSecret());
      deps.audit.record('login.mfa.enrollment_restarted', { account_id: pending.accountId, ip: ctx.ip });
    }
    if (enrolling && redirectNotice(ctx, deps, { uid: interaction.uid, json }, { step: 'mfa', notice: 'mfa.newKeyNotice' })) return;
    if (!enrolling && redirectsAfterPost(ctx, json)) {
      seeOther(ctx, interactionPath(interaction.uid));
      return;
    }
    await renderMfaStep(ctx, deps, {
      interaction,
      pending,
      json,
      status: 200,
      ...(enrolling ? { notice: pageLanguage(ctx).t('mfa.newKeyNotice') } : {}),
    });
  };
}
