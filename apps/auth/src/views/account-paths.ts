/** The account page's sections, one page each, and where each one and its confirmation pages live. */
import { ACCOUNT_PATH } from '../clients/account-client.ts';

export type AccountSection = 'profile' | 'security' | 'sessions' | 'apps';

export const SECTION_PATHS: Readonly<Record<AccountSection, string>> = {
  profile: ACCOUNT_PATH,
  security: `${ACCOUNT_PATH}/security`,
  sessions: `${ACCOUNT_PATH}/sessions`,
  apps: `${ACCOUNT_PATH}/apps`,
};

export const ACCOUNT_SECTIONS: readonly AccountSection[] = ['profile', 'security', 'sessions', 'apps'];

/** The confirmation pages of the destructive actions (GET shows, the Confirm button posts). */
export const ACCOUNT_CONFIRM_PATHS = {
  removeDevice: `${ACCOUNT_PATH}/security/devices/remove`,
  removePasskey: `${ACCOUNT_PATH}/security/passkeys/remove`,
  recoveryCodes: `${ACCOUNT_PATH}/security/recovery-codes`,
  removeLink: `${ACCOUNT_PATH}/security/links/remove`,
  signOutOthers: `${ACCOUNT_PATH}/sessions/sign-out-others`,
  endSession: `${ACCOUNT_PATH}/sessions/end`,
  revokeApp: `${ACCOUNT_PATH}/apps/revoke`,
} as const;
