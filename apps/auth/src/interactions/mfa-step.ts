import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { qrSvg } from '../mfa/qr.ts';
import { mfaPage } from '../views/mfa-page.ts';
import type { Interaction, PendingLogin } from './interaction-state.ts';
import { respond } from './respond.ts';
import type { InteractionDeps } from './deps.ts';

/** Renders the second-factor challenge (and the TOTP enrollment when one is pending). */
export async function renderMfaStep(
  ctx: Context,
  deps: InteractionDeps,
  options: { interaction: Interaction; pending: PendingLogin; json: boolean; status: number; error?: { code: string; message: string } },
): Promise<void> {
  const { interaction, pending, json, status, error } = options;
  let enrollment: { secret: string; otpauthUri: string; qrSvg: string } | undefined;
  if (pending.pendingTotpSecret) {
    const secret = deps.box.open(pending.pendingTotpSecret);
    const issuerName = new URL(deps.config.issuer).host;
    const otpauthUri = deps.totp.uri(secret, { issuer: `Gatehouse (${issuerName})`, label: pending.username });
    enrollment = { secret, otpauthUri, qrSvg: json ? '' : await qrSvg(otpauthUri) };
  }
  ctx.state.formActionOrigins = [];
  respond(
    ctx,
    json,
    status,
    () => mfaPage({ uid: interaction.uid, username: pending.username, enrollment, error: error?.message }),
    {
      ...(error ? { error: error.code, error_description: error.message } : {}),
      status: 'mfa_required',
      next: AUTH_ROUTES.mfaVerify,
      methods: ['totp'],
      ...(enrollment ? { enrollment: { secret: enrollment.secret, otpauth_uri: enrollment.otpauthUri } } : {}),
    },
  );
}
