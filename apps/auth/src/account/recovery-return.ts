/**
 * Where "Forgot password?" returns the user: the sign-in page of the interaction they came from,
 * or the account page. Rules: only a same-origin path of the form `/interaction/<uid>` is kept
 * (no open redirect); anything else is the account page.
 */
import { ACCOUNT_PATH } from '../clients/account-client.ts';

const INTERACTION_PATH = /^\/interaction\/[A-Za-z0-9_-]{1,64}$/;

/** The kept return path, or undefined. */
export function recoveryReturn(value: unknown): string | undefined {
  return typeof value === 'string' && INTERACTION_PATH.test(value) ? value : undefined;
}

/** Where the "sign in" link of the recovery pages goes. */
export const signInAgainUrl = (returnTo: string | undefined): string => returnTo ?? ACCOUNT_PATH;

/** The query that carries the return path along (empty without one). */
export const returnQuery = (returnTo: string | undefined): string => (returnTo ? `?return=${encodeURIComponent(returnTo)}` : '');
