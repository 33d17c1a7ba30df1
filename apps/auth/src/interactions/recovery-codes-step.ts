import type { Context } from 'koa';
import { pageLanguage } from '../i18n/page-language.ts';
import { recoveryCodesStepPage } from '../views/recovery-codes-step-page.ts';
import { redirectOrigin, type Interaction } from './interaction-state.ts';
import { RECOVERY_CODES_SAVED_PATH } from './mfa-step.ts';
import { respond } from './respond.ts';

/**
 * The recovery codes of a sign-in whose second factor passed, shown until the user confirms they
 * saved them (200; JSON `{ status: 'recovery_codes_issued', recovery_codes, next }`). The page's
 * "I have saved them" posts to RECOVERY_CODES_SAVED_PATH, which ends in a redirect to the client.
 */
export function renderRecoveryCodesStep(ctx: Context, options: { interaction: Interaction; json: boolean; codes: readonly string[] }): void {
  const { interaction, json, codes } = options;
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  respond(ctx, json, 200, () => recoveryCodesStepPage({ uid: interaction.uid, codes, action: RECOVERY_CODES_SAVED_PATH, language: pageLanguage(ctx) }), {
    status: 'recovery_codes_issued',
    recovery_codes: codes,
    next: RECOVERY_CODES_SAVED_PATH,
  });
}
