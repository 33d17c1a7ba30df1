/**
 * POST /mfa/enrollment/restart: "Start over" on the TOTP enrollment page. Rules:
 * - only on this browser's interaction, past its password step (read-mfa-request.ts);
 * - while the account is enrolling, its pending secret is replaced by a new one, deliberately
 *   (the only way the key changes), and the page shows the new key and QR code with a notice to
 *   remove the old entry from the authenticator app; audited `login.mfa.enrollment_restarted`;
 * - an account whose enrollment was confirmed meanwhile just gets the challenge again.
 */
import { pageLanguage } from '../../i18n/page-language.ts';
import type { Context } from 'koa';
import type { HandlerServices } from '../deps.ts';
import { renderMfaStep, type MfaStepDeps } from '../mfa-step.ts';
import { readMfaRequest, type ReadMfaRequestDeps } from './read-mfa-request.ts';

export type RestartEnrollmentDeps = ReadMfaRequestDeps & MfaStepDeps & Pick<HandlerServices, 'totp' | 'totpEnrollments' | 'audit'>;

export function createRestartEnrollmentHandler(deps: RestartEnrollmentDeps) {
  return async function restartEnrollment(ctx: Context): Promise<void> {
    const { interaction, pending, json } = await readMfaRequest(ctx, deps);
    const enrolling = pending.enrolling && (await deps.totpEnrollments.pendingSecret(pending.accountId)) !== undefined;
    if (enrolling) {
      await deps.totpEnrollments.startSecret(pending.accountId, deps.totp.generateSecret());
      deps.audit.record('login.mfa.enrollment_restarted', { account_id: pending.accountId, ip: ctx.ip });
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
