import { sql, type Kysely } from 'kysely';
import { createEmailChangeStore } from './accounts/email-change-store.ts';
import { pendingMigrations, type ChangeListener, type Database } from '@gatehouse/db';
import type { AuthConfig } from './config/config.ts';
import type { AuthSchema } from './storage/schema.ts';
import { authMigrations } from './storage/migrations.ts';
import { createSecretBox } from './crypto/secret-box.ts';
import { createAccountStore } from './accounts/account-store.ts';
import { createClientRowReader, createClientStore } from './clients/client-store.ts';
import { clientChangeSource, createClientChangeTracker } from './clients/client-change-tracker.ts';
import { createKeyStore } from './keys/key-store.ts';
import { createRegulationStore } from './regulation/regulation-store.ts';
import { createKnownDevices } from './regulation/known-device.ts';
import { createRegulator, type RegulationRules } from './regulation/regulator.ts';
import { createTotp } from './mfa/totp.ts';
import { createOidcAdapter } from './oidc/adapter.ts';
import { currentRequestScope, orderAsRequested } from './oidc/scope-order.ts';
import { currentOidcRequest, currentRefreshTokenParam } from './oidc/current-request.ts';
import { createTokenPathReads } from './oidc/token-path-reads.ts';
import { createPayloadStore } from './oidc/payload-store.ts';
import { createDeviceStore } from './devices/device-store.ts';
import { createEnrollmentStore } from './devices/enrollment-store.ts';
import { createPushStore } from './push/push-store.ts';
import { createPushHub } from './push/push-hub.ts';
import { createTotpEnrollmentStore } from './accounts/totp-enrollment-store.ts';
import { createFactorPreferenceStore } from './accounts/factor-preference-store.ts';
import { createRecoveryCodeStore } from './recovery/recovery-code-store.ts';
import { createRevocationStore } from './revocation/revocation-store.ts';
import { createStreamRegistry } from './http/stream-registry.ts';
import { createPasskeyStore } from './passkeys/passkey-store.ts';
import { createChallengeStore } from './passkeys/challenge-store.ts';
import { createScopePolicyStore } from './policy/scope-policy-store.ts';
import { createScopeGate } from './policy/scope-policy.ts';
import { createScopePolicyService } from './policy/scope-policy-service.ts';
import { createUserSessionStore } from './sessions/user-sessions.ts';
import { createAuditEventStore } from './audit/audit-event-store.ts';
import { createAuditTrail } from './audit/audit-trail.ts';
import { createSessionMetaStore } from './sessions/session-meta-store.ts';
import { createPasswordResetStore } from './accounts/password-reset-store.ts';
import { createConsentStore } from './consent/consent-store.ts';
import { createIdentityProviderStore } from './federation/identity-provider-store.ts';
import { createAccountLinkStore } from './federation/account-link-store.ts';
import type { AuthStores } from './auth-stores.ts';

/**
 * Every store and service of the authorization server, built once from the database. The
 * server (app.ts) and the operator CLI (cli/cli-context.ts) both run on this one set, so a
 * command and a request change the data through the same code.
 */
export interface AuthServices extends AuthStores {
  oidcAdapter: ReturnType<typeof createOidcAdapter>;
}

/** What only a server (not the CLI) gives the services. */
export interface AuthServerOptions {
  /**
   * PostgreSQL: the listener of CLIENT_CHANGES_CHANNEL (clients/client-change-tracker.ts). With it, the
   * token endpoint reuses a client row until a change is heard; without it, it reads the row on
   * every request. SQLite needs none.
   */
  clientChangeListener?: ChangeListener;
  /**
   * `joined` (the default): a token request's lookups are answered by one joined read where they can
   * be (oidc/token-path-reads.ts); `plain`: every store reads on its own. Both answer the same; tests
   * compare them.
   */
  tokenPathReads?: 'joined' | 'plain';
}

export function createAuthServices(config: AuthConfig, database: Database<AuthSchema>, clock: () => number = Date.now, server: AuthServerOptions = {}): AuthServices {
  const db = database.db;
  const box = createSecretBox(config.encryptionKeys);
  // A client row is reused while the clients and policies are unchanged (clients/client-change-tracker.ts).
  const clientChanges = createClientChangeTracker(clientChangeSource(database, server.clientChangeListener));
  // The token path's unit of work (oidc/token-path-reads.ts) wraps the store methods it answers:
  // fewer round trips per token request. Plain, each store reads on its own.
  const reads =
    server.tokenPathReads === 'plain'
      ? undefined
      : createTokenPathReads({ db, engine: database.engine, currentRequest: currentOidcRequest, refreshTokenOfRequest: currentRefreshTokenParam, clientOfRow: createClientRowReader(box, clock), changes: clientChanges });
  const joined = <S>(wrap: ((store: S) => S) | undefined, store: S): S => (wrap ? wrap(store) : store);
  const clients = joined(reads?.clients, createClientStore(db, box, clock, clientChanges));
  const payloads = joined(reads?.payloads, createPayloadStore(db));
  const regulationStore = createRegulationStore(db);
  const revocations = createRevocationStore(db, clock);
  // Every access token of a revoked grant has expired one access-token lifetime later.
  const onGrantRevoked = (grantId: string) => revocations.revokeGrant(grantId, clock() + config.accessTokenTtl * 1000);
  const accounts = joined(reads?.accounts, createAccountStore(db, box, clock));
  const policyStore = joined(reads?.scopePolicies, createScopePolicyStore(db, clock, clientChanges));
  // SQLite on a file: each batch's fsync runs in libuv's pool, not on the event loop.
  const auditEvents = createAuditEventStore(db, database.engine, database.engine === 'sqlite' ? database.deferredSync : undefined);
  return {
    box,
    accounts,
    clients,
    keys: createKeyStore(db, box),
    regulationStore,
    regulator: createRegulator({ store: regulationStore, clock, rules: regulationRules(config) }),
    knownDevices: createKnownDevices({ keys: config.cookieKeys, ttl: config.regulation.knownDeviceTtl, clock }),
    totp: createTotp(),
    oidcAdapter: createOidcAdapter({
      payloads,
      clients,
      db,
      clock,
      currentRequest: currentOidcRequest,
      onGrantRevoked,
      orderCodeScope: (scope) => orderAsRequested(scope, currentRequestScope()),
      engine: database.engine,
      ...(database.engine === 'sqlite' && database.deferredSync ? { deferredSync: database.deferredSync } : {}),
    }),
    devices: createDeviceStore(db, clock),
    enrollments: createEnrollmentStore(db, clock),
    pushes: createPushStore(db, clock),
    pushHub: createPushHub(),
    recoveryCodes: createRecoveryCodeStore(db, clock),
    totpEnrollments: createTotpEnrollmentStore(db, box, clock),
    factorPreferences: createFactorPreferenceStore(db, clock),
    emailChanges: createEmailChangeStore(db, clock),
    revocations,
    passkeys: createPasskeyStore(db, clock),
    passkeyChallenges: createChallengeStore(db, clock),
    scopePolicies: createScopePolicyService({ store: policyStore, apiScopes: config.api.scopes }),
    scopeGate: createScopeGate({ policies: policyStore, accounts }),
    userSessions: createUserSessionStore({ db, clock, sessionTtl: config.sessionTtl, onGrantRevoked }),
    auditEvents,
    auditTrail: createAuditTrail({ events: auditEvents, accounts }),
    sessionMeta: createSessionMetaStore(db, clock),
    passwordResets: createPasswordResetStore(db, clock),
    consents: createConsentStore(db, clock),
    identityProviderStore: createIdentityProviderStore(db, box, clock),
    accountLinks: createAccountLinkStore(db, clock),
    streams: createStreamRegistry(),
    clock,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    pendingMigrations: () => pendingMigrations(db as Kysely<unknown>, 'auth', authMigrations),
  };
}

/**
 * Password-recovery requests (account/forgot-password.ts), fixed: per typed name and per account 3
 * an hour, per client IP 20 an hour; past that, the answer is 429 for an hour after the last counted one.
 */
export const RECOVERY_RULES = {
  recovery: { delayAfter: 3, delay: 0, maxDelay: 0, lockAfter: 3, findTime: 3600, banTime: 3600 },
  'recovery-ip': { delayAfter: 20, delay: 0, maxDelay: 0, lockAfter: 20, findTime: 3600, banTime: 3600 },
} as const;

/**
 * Wrong device-enrollment codes (authenticator/api.ts), fixed: 10 per client IP an hour; past that,
 * the answer is 429 for an hour after the last counted one. A code is 60 random bits that live ten
 * minutes, so this leaves guessing hopeless while a user who mistypes a few times goes on.
 */
export const ENROLLMENT_RULES = {
  'enrollment-ip': { delayAfter: 10, delay: 0, maxDelay: 0, lockAfter: 10, findTime: 3600, banTime: 3600 },
} as const;

/** The regulator's rules from the config: known devices and second factors share the account's rule. */
export function regulationRules(config: AuthConfig): RegulationRules {
  const { account, ip } = config.regulation;
  return { account, device: account, mfa: account, ip, ...RECOVERY_RULES, ...ENROLLMENT_RULES };
}
