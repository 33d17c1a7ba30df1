/**
 * Which second factor the sign-in offers first. Rules:
 * - the methods are the account's: TOTP, push (a device), passkey, recovery codes (unused ones);
 * - first is the one the user set as preferred on the account page, when the account still has it;
 *   else the one that passed last, when the account still has it; else TOTP;
 * - a method the user is already using on this page (a refused code, a denied push) stays first;
 * - the others follow in the fixed order TOTP, push, passkey, with recovery codes always last
 *   (they are never preferred and never first unless asked for).
 */
export type MfaMethod = 'totp' | 'push' | 'passkey' | 'recovery';

const ORDER: readonly MfaMethod[] = ['totp', 'push', 'passkey', 'recovery'];

export const isMfaMethod = (value: unknown): value is MfaMethod => (ORDER as readonly unknown[]).includes(value);

export interface FactorOrder {
  offered: MfaMethod;
  others: MfaMethod[];
}

export function orderFactors(methods: readonly MfaMethod[], choice: { using?: MfaMethod | undefined; preferred: MfaMethod | null; lastUsed: MfaMethod | null }): FactorOrder {
  const has = (method: MfaMethod | null | undefined): method is MfaMethod => method !== null && method !== undefined && methods.includes(method);
  const offered = [choice.using, choice.preferred, choice.lastUsed].find(has) ?? (has('totp') ? 'totp' : (ORDER.find(has) ?? 'totp'));
  return { offered, others: ORDER.filter((method) => method !== offered && has(method)) };
}
