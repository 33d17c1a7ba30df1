/**
 * What a sign-in attempt counts against (regulation/regulator.ts): the account by its lowercased
 * username, and the client IP. The password step and the second-factor step share the counters.
 */
export function regulationKeys(username: string, ip: string): string[] {
  return [`account:${username.toLowerCase()}`, `ip:${ip}`];
}
