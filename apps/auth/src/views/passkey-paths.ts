/** The passkey endpoints (interaction side and the signed-in devices page side): the pages post to them, interactions/passkey/passkey-routes.ts and authenticator/routes.ts serve them. */
export const PASSKEY_PATHS = {
  /** Passwordless sign-in: options (JSON) and the assertion (form post, 302 to the client). */
  loginOptions: '/login/passkey/options',
  login: '/login/passkey',
  /** Second factor: options for the pending login's account; the assertion goes to /mfa/verify. */
  mfaOptions: '/mfa/passkey/options',
  /** Devices page: registration options, registration, removal. */
  registerOptions: '/authenticator/passkeys/options',
  register: '/authenticator/passkeys',
  remove: '/authenticator/passkeys/remove',
} as const;
