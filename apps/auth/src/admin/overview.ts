/**
 * The state of the server at a glance, for the admin console's dashboard (and any other front
 * end that wants it). Rules:
 * - sign-ins and failures are counted from the stored audit trail over the last 24 hours by the
 *   injected clock: a sign-in is a completed login (`login.mfa.success`, `login.passkey.success`),
 *   a failure a refused password, second factor or passkey (`login.password.failure`,
 *   `login.mfa.failure`, `login.passkey.failure`); lockouts started are `login.lockout`;
 *   the audit events still queued in memory are written first (`flush`), so the counts include them;
 * - current lockouts are the accounts whose password or second-factor key (`account:`, `mfa:`,
 *   admin/user-admin.ts lockoutKeys) the regulator says is locked now;
 * - active sessions are the live signed-in SSO sessions of every account;
 * - the signing keys are key-admin.ts's list, each with its age;
 * - pending migrations are the ones the database has not applied (the instance is not ready
 *   while there are any); the version is the package's (build info).
 */
import type { AuditEventStore } from '../audit/audit-event-store.ts';
import type { RegulationStore } from '../regulation/regulation-store.ts';
import type { RegulationRule, Regulator } from '../regulation/regulator.ts';
import type { UserSessionStore } from '../sessions/user-sessions.ts';
import type { KeyAdmin, KeyInfo } from './key-admin.ts';

const DAY_MS = 86_400_000;
export const SIGN_IN_EVENTS = ['login.mfa.success', 'login.passkey.success'] as const;
export const FAILURE_EVENTS = ['login.password.failure', 'login.mfa.failure', 'login.passkey.failure'] as const;
const LOCKOUT_PREFIXES = ['account:', 'mfa:'] as const;

export interface Overview {
  /** The window the counts cover, epoch ms. */
  since: number;
  signIns: number;
  failures: number;
  lockoutsStarted: number;
  /** Usernames locked out now, with when their lock ends. */
  lockedOut: { username: string; until: number }[];
  activeSessions: number;
  keys: (KeyInfo & { ageMs: number })[];
  pendingMigrations: string[];
  version: { version: string; commit: string };
}

export interface OverviewDeps {
  auditEvents: Pick<AuditEventStore, 'countSince'>;
  regulationStore: Pick<RegulationStore, 'keysWithFailures'>;
  regulator: Pick<Regulator, 'lockedUntil'>;
  /** The account and second-factor rules (config.regulation): how many failures lock, for how long. */
  rules: { account: RegulationRule; mfa: RegulationRule };
  userSessions: Pick<UserSessionStore, 'countLive'>;
  keys: Pick<KeyAdmin, 'list'>;
  pendingMigrations: () => Promise<string[]>;
  version: { version: string; commit: string };
  /** Writes the audit events still queued (audit/audit-sink.ts). */
  flush?: () => Promise<void>;
  clock: () => number;
}

export interface AdminOverview {
  read(): Promise<Overview>;
}

export function createAdminOverview(deps: OverviewDeps): AdminOverview {
  async function lockedOut(now: number): Promise<Overview['lockedOut']> {
    const { account, mfa } = deps.rules;
    // A lock needs lockAfter failures in one window, and lasts banTime from the last of them.
    const lookBack = Math.max(account.findTime + account.banTime, mfa.findTime + mfa.banTime) * 1000;
    const candidates = await deps.regulationStore.keysWithFailures(LOCKOUT_PREFIXES, now - lookBack, Math.min(account.lockAfter, mfa.lockAfter));
    const until = new Map<string, number>();
    for (const key of candidates) {
      const ends = await deps.regulator.lockedUntil([key]);
      if (ends === null) continue;
      const username = key.slice(key.indexOf(':') + 1);
      until.set(username, Math.max(until.get(username) ?? 0, ends));
    }
    return [...until].map(([username, ends]) => ({ username, until: ends })).sort((a, b) => a.username.localeCompare(b.username));
  }

  return {
    async read() {
      await deps.flush?.();
      const now = deps.clock();
      const since = now - DAY_MS;
      const [counts, locked, activeSessions, keys, pendingMigrations] = await Promise.all([
        deps.auditEvents.countSince([...SIGN_IN_EVENTS, ...FAILURE_EVENTS, 'login.lockout'], since),
        lockedOut(now),
        deps.userSessions.countLive(),
        deps.keys.list(),
        deps.pendingMigrations(),
      ]);
      const sum = (events: readonly string[]) => events.reduce((total, event) => total + (counts[event] ?? 0), 0);
      return {
        since,
        signIns: sum(SIGN_IN_EVENTS),
        failures: sum(FAILURE_EVENTS),
        lockoutsStarted: counts['login.lockout'] ?? 0,
        lockedOut: locked,
        activeSessions,
        keys: keys.map((key) => ({ ...key, ageMs: Math.max(0, now - key.createdAt) })),
        pendingMigrations,
        version: deps.version,
      };
    },
  };
}
