/**
 * Domain metrics of the authorization server, counted where the events happen (next to their
 * audit events). Rules:
 * - label values come from closed unions (step, method, outcome) or a fixed list (grant types,
 *   `other` for any grant not in it);
 *   usernames, account ids, IPs, codes and tokens never become labels;
 * - a login step's outcome is `success`, `failure` (wrong credentials or code), `delayed`
 *   (refused during a progressive delay) or `locked` (refused during a lock), the last two before
 *   anything is checked (regulation/regulator.ts);
 * - a lockout is counted once, by the failure that starts the lock (delays are not lockouts);
 * - a passwordless passkey sign-in is the login step `passkey` (both factors at once);
 * - second factors: `totp`, `recovery` and `passkey` succeed or fail; `push` succeeds, or ends `denied` on
 *   the authenticator or `expired` before an answer;
 * - back-channel logout attempts end `delivered`, `retrying` (failed, another attempt follows) or
 *   `abandoned` (the last attempt failed, or too many were waiting).
 */
import { Counter, Gauge, type Registry } from '@gatehouse/metrics';

export type LoginStep = 'password' | 'mfa' | 'passkey' | 'federated';
export type LoginOutcome = 'success' | 'failure' | 'delayed' | 'locked';
export type SecondFactorMethod = 'totp' | 'push' | 'recovery' | 'passkey';
export type SecondFactorOutcome = 'success' | 'failure' | 'denied' | 'expired';

/**
 * The `grant_type` label values: every grant the token endpoint serves, each by its own
 * `grant_type` parameter (RFC 8628's and RFC 8693's URNs in full, as the audit's `token.issued`
 * names them); any other value is `other`, so no request can grow the label set.
 */
const GRANT_TYPES: ReadonlySet<string> = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
]);

/** What the login, push and token code records. */
export interface AuthMetrics {
  login(step: LoginStep, outcome: LoginOutcome): void;
  secondFactor(method: SecondFactorMethod, outcome: SecondFactorOutcome): void;
  lockout(step: LoginStep): void;
  tokenIssued(grantType: string | undefined): void;
  backchannelLogout(outcome: 'delivered' | 'retrying' | 'abandoned'): void;
  /** Counts an authenticator event stream as open; call the returned function once when it ends. */
  pushStreamOpened(): () => void;
}

export function createAuthMetrics(registry: Registry): AuthMetrics {
  const registers = [registry];
  const logins = new Counter({
    name: 'auth_logins_total',
    help: 'Login steps answered, by step (password, mfa, passkey: passwordless, federated: an upstream identity provider) and outcome (success, failure, delayed, locked).',
    labelNames: ['step', 'outcome'] as const,
    registers,
  });
  const secondFactors = new Counter({
    name: 'auth_second_factors_total',
    help: 'Second-factor attempts by method (totp, push, recovery, passkey) and outcome (success, failure, denied, expired).',
    labelNames: ['method', 'outcome'] as const,
    registers,
  });
  const lockouts = new Counter({
    name: 'auth_lockouts_total',
    help: 'Bans started by a failed login step, by step.',
    labelNames: ['step'] as const,
    registers,
  });
  const tokens = new Counter({
    name: 'auth_tokens_issued_total',
    help: 'Token endpoint grants that issued tokens, by grant type.',
    labelNames: ['grant_type'] as const,
    registers,
  });
  const backchannel = new Counter({
    name: 'auth_backchannel_logouts_total',
    help: 'Back-channel logout token deliveries by outcome (delivered, retrying: failed and tried again later, abandoned).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const streams = new Gauge({
    name: 'auth_push_streams_active',
    help: 'Authenticator event streams (Server-Sent Events) open now.',
    registers,
  });

  return {
    login: (step, outcome) => logins.inc({ step, outcome }),
    secondFactor: (method, outcome) => secondFactors.inc({ method, outcome }),
    lockout: (step) => lockouts.inc({ step }),
    backchannelLogout: (outcome) => backchannel.inc({ outcome }),
    tokenIssued: (grantType) => tokens.inc({ grant_type: grantType && GRANT_TYPES.has(grantType) ? grantType : 'other' }),
    pushStreamOpened() {
      streams.inc();
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        streams.dec();
      };
    },
  };
}
