import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { qrSvg } from '../mfa/qr.ts';
import { ENROLLMENT_RESTART_PATH, mfaPage } from '../views/mfa-page.ts';
import type { PushTransaction } from '../push/push-store.ts';
import { pageBranding, redirectOrigin, type Interaction, type PendingLogin } from './interaction-state.ts';
import { respond } from './respond.ts';
import { orderFactors, type MfaMethod } from '../mfa/factor-order.ts';
import type { AuthConfig } from '../config/config.ts';
import type { HandlerServices } from './deps.ts';
import { accountFactors, hasSecondFactor, type AccountFactors, type AccountFactorsDeps } from './mfa/account-factors.ts';

/** Where a browser (GET, completes the login) and its script (GET, state only) follow a push. */
export const pushPollPath = (id: string): string => `/mfa/push/${encodeURIComponent(id)}`;
export { ENROLLMENT_RESTART_PATH };
/** "I have saved them" after recovery codes were shown (mfa/recovery-codes-saved.ts). */
export const RECOVERY_CODES_SAVED_PATH = '/mfa/recovery-codes/saved';
export const pushStatusPath = (id: string): string => `${pushPollPath(id)}/status`;

export type MfaStepDeps = AccountFactorsDeps & Pick<HandlerServices, 'provider' | 'box' | 'accounts' | 'totp' | 'totpEnrollments' | 'factorPreferences' | 'clock'> & { config: Pick<AuthConfig, 'issuer'> };

/**
 * Renders the second-factor challenge (and the TOTP enrollment when one is pending: the
 * account's kept secret, the same on every view, with "Start over"). The methods
 * offered are TOTP when the account has it or enrols it, push when it has a device, passkey when
 * it has a WebAuthn credential, recovery when it has unused codes (TOTP alone when it has none of
 * them any more: its code is refused and the sign-in starts over); the page offers one first, alone (the method in
 * use on this page, else the preferred one, else the one used last: mfa/factor-order.ts) and the
 * others behind "Try another method"; with a PENDING `push` the page is the WAITING page (the
 * number and its poller). The JSON body lists the methods in their fixed order.
 */
export async function renderMfaStep(
  ctx: Context,
  deps: MfaStepDeps,
  options: {
    interaction: Interaction;
    pending: PendingLogin;
    json: boolean;
    status: number;
    /** The refusal shown; its headers (Retry-After of a 429) give the wait in other languages. */
    error?: { code: string; message: string; headers?: Readonly<Record<string, string>>; detail?: string | undefined };
    push?: PushTransaction;
    /** The method the refused request used: it stays first (a recovery code's box stays open). */
    using?: MfaMethod;
    /** A message that is not an error (e.g. after "Start over"). */
    notice?: string;
    /** Extra members of the JSON body (e.g. the push `state` of a refusal). */
    extra?: Record<string, unknown>;
  },
): Promise<void> {
  const { interaction, pending, json, status, error, push } = options;
  let enrollment: { secret: string; otpauthUri: string; qrSvg: string } | undefined;
  // Confirmed meanwhile (another tab): no secret is pending, the account's is asked for.
  const secret = pending.enrolling ? await deps.totpEnrollments.pendingSecret(pending.accountId) : undefined;
  if (secret) {
    const issuerName = new URL(deps.config.issuer).host;
    const otpauthUri = deps.totp.uri(secret, { issuer: `Gatehouse (${issuerName})`, label: pending.username });
    enrollment = { secret, otpauthUri, qrSvg: json ? '' : await qrSvg(otpauthUri) };
  }
  const [account, preference] = await Promise.all([deps.accounts.findById(pending.accountId), deps.factorPreferences.find(pending.accountId)]);
  const factors = await accountFactors(deps, { id: pending.accountId, totpEnrolled: account?.totpEnrolled ?? false });
  const methods = offeredMethods(factors, enrollment !== undefined);
  const order = orderFactors(methods, { using: options.using, preferred: preference.preferred, lastUsed: preference.lastUsed });
  const waiting = push?.state === 'PENDING' ? push : undefined;
  // The page's forms (a code, a recovery code) succeed with a 302 to the client, and Chromium
  // applies this page's form-action to that redirect.
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  const client = json ? undefined : await pageBranding(ctx, deps.provider(), interaction);
  const page = () => {
    const language = pageLanguage(ctx);
    return mfaPage({
      uid: interaction.uid,
      username: pending.username,
      ...(client ? { client } : {}),
      enrollment,
      error: error && language.errorText({ ...error, headers: error.headers ?? {} }),
      ...(options.notice ? { notice: options.notice } : {}),
      errorCode: error?.code,
      methods: order,
      waiting: waiting && { number: waiting.number, pollUrl: pushPollPath(waiting.id), statusUrl: pushStatusPath(waiting.id), expiresInSeconds: Math.max(0, Math.ceil((waiting.expiresAt - deps.clock()) / 1000)) },
      language,
    });
  };
  if (waiting) {
    respond(ctx, json, status, page, {
      status: 'push_waiting',
      state: waiting.state,
      number: waiting.number,
      poll: pushPollPath(waiting.id),
      expires_in: Math.max(0, Math.ceil((waiting.expiresAt - deps.clock()) / 1000)),
      methods,
    });
    return;
  }
  respond(ctx, json, status, page, {
    ...(error ? { error: error.code, error_description: error.message } : {}),
    ...options.extra,
    status: 'mfa_required',
    next: AUTH_ROUTES.mfaVerify,
    methods,
    ...(enrollment
      ? {
          enrollment: {
            secret: enrollment.secret,
            otpauth_uri: enrollment.otpauthUri,
            restart: ENROLLMENT_RESTART_PATH,
          },
        }
      : {}),
  });
}

/** The account's methods in their fixed order (TOTP, push, passkey, recovery). */
function offeredMethods(factors: AccountFactors, enrolling: boolean): MfaMethod[] {
  if (!enrolling && !hasSecondFactor(factors)) return ['totp'];
  return [
    ...(factors.totp || enrolling ? (['totp'] as const) : []),
    ...(factors.devices > 0 ? (['push'] as const) : []),
    ...(factors.passkeys > 0 ? (['passkey'] as const) : []),
    ...(factors.recoveryCodes > 0 ? (['recovery'] as const) : []),
  ];
}
