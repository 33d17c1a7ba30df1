/**
 * What a sign-in attempt counts against (regulation/regulator.ts applies each key's rule).
 * Rules:
 * - from a known device (regulation/known-device.ts: this browser completed a sign-in for the
 *   account recently), the password step counts only against that device (`device:<hash>`): an
 *   attacker elsewhere, even behind the same address, cannot lock the user out there;
 * - from any other browser it counts against the account by its lowercased username
 *   (`account:<username>`) and the client IP (`ip:<address>`, a larger budget for spraying);
 * - the second-factor step adds `mfa:<username>` in both cases: only someone who passed the
 *   password can fail it, and it bounds code guessing per account whatever the device or IP.
 */
export interface AttemptOrigin {
  username: string;
  ip: string;
  /** The known device's regulation id, when the browser proved one for this account. */
  device: string | undefined;
}

export function passwordKeys(origin: AttemptOrigin): string[] {
  if (origin.device) return [`device:${origin.device}`];
  return [`account:${origin.username.toLowerCase()}`, `ip:${origin.ip}`];
}

export function secondFactorKeys(origin: AttemptOrigin): string[] {
  return [...passwordKeys(origin), `mfa:${origin.username.toLowerCase()}`];
}
