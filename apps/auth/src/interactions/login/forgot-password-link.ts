/**
 * The login page's "Forgot password?" link: to /account/forgot-password with the interaction's
 * sign-in page as the way back (account/recovery-return.ts), or none when no mail can be sent
 * (production without AUTH_SMTP_URL).
 */
import type { HandlerServices } from '../deps.ts';

export function forgotPasswordUrl(deps: Pick<HandlerServices, 'mailer'>, uid: string): string | undefined {
  return deps.mailer ? `/account/forgot-password?return=${encodeURIComponent(`/interaction/${uid}`)}` : undefined;
}
