import type { SecretBox } from './crypto/secret-box.ts';
import type { EmailChangeStore } from './accounts/email-change-store.ts';
import type { AccountStore } from './accounts/account-store.ts';
import type { ClientStore } from './clients/client-store.ts';
import type { KeyStore } from './keys/key-store.ts';
import type { RegulationStore } from './regulation/regulation-store.ts';
import type { KnownDevices } from './regulation/known-device.ts';
import type { Regulator } from './regulation/regulator.ts';
import type { Totp } from './mfa/totp.ts';
import type { DeviceStore } from './devices/device-store.ts';
import type { EnrollmentStore } from './devices/enrollment-store.ts';
import type { PushStore } from './push/push-store.ts';
import type { PushHub } from './push/push-hub.ts';
import type { TotpEnrollmentStore } from './accounts/totp-enrollment-store.ts';
import type { FactorPreferenceStore } from './accounts/factor-preference-store.ts';
import type { RecoveryCodeStore } from './recovery/recovery-code-store.ts';
import type { RevocationStore } from './revocation/revocation-store.ts';
import type { StreamRegistry } from './http/stream-registry.ts';
import type { PasskeyStore } from './passkeys/passkey-store.ts';
import type { ChallengeStore } from './passkeys/challenge-store.ts';
import type { ScopeGate } from './policy/scope-policy.ts';
import type { ScopePolicyService } from './policy/scope-policy-service.ts';
import type { UserSessionStore } from './sessions/user-sessions.ts';
import type { AuditEventStore } from './audit/audit-event-store.ts';
import type { AuditTrail } from './audit/audit-trail.ts';
import type { SessionMetaStore } from './sessions/session-meta-store.ts';
import type { PasswordResetStore } from './accounts/password-reset-store.ts';
import type { ConsentStore } from './consent/consent-store.ts';
import type { IdentityProviderStore } from './federation/identity-provider-store.ts';
import type { AccountLinkStore } from './federation/account-link-store.ts';

/**
 * The stores and services of the authorization server that stand below the protocol layer:
 * what the browser-facing handlers, the operator services and the CLI are built on. Rules:
 * - nothing here imports `oidc/`; the protocol's own storage (the adapter) is added by
 *   services.ts, which builds both;
 * - each consumer declares the `Pick` it uses.
 */
export interface AuthStores {
  box: SecretBox;
  accounts: AccountStore;
  clients: ClientStore;
  keys: KeyStore;
  regulationStore: RegulationStore;
  regulator: Regulator;
  knownDevices: KnownDevices;
  totp: Totp;
  devices: DeviceStore;
  enrollments: EnrollmentStore;
  pushes: PushStore;
  pushHub: PushHub;
  recoveryCodes: RecoveryCodeStore;
  /** Pending TOTP secrets and recovery codes not yet confirmed saved, sealed (accounts/totp-enrollment-store.ts). */
  totpEnrollments: TotpEnrollmentStore;
  /** The second factor each user prefers and the one that passed last (accounts/factor-preference-store.ts). */
  factorPreferences: FactorPreferenceStore;
  emailChanges: EmailChangeStore;
  revocations: RevocationStore;
  /** WebAuthn credentials and the challenges of their ceremonies. */
  passkeys: PasskeyStore;
  passkeyChallenges: ChallengeStore;
  /** The access policy: operations (CLI) and the check applied to every grant (oidc/). */
  scopePolicies: ScopePolicyService;
  scopeGate: ScopeGate;
  /** A user's SSO sessions and grants, for operators (admin/user-admin.ts). */
  userSessions: UserSessionStore;
  /** The stored audit trail (audit/): written through the logger's audit sink, read by auditTrail. */
  auditEvents: AuditEventStore;
  auditTrail: AuditTrail;
  /** The browser and last use of each SSO session, and one-time password-reset tokens (account/). */
  sessionMeta: SessionMetaStore;
  passwordResets: PasswordResetStore;
  /** What each user allowed each client on the consent page (consent/). */
  consents: ConsentStore;
  /** The upstream identity providers (federation/); operators and sign-ins use them through IdentityProviderService. */
  identityProviderStore: IdentityProviderStore;
  /** Upstream identity providers' users linked to local accounts (federation/). */
  accountLinks: AccountLinkStore;
  /** Open SSE streams, ended with a retry hint on shutdown. */
  streams: StreamRegistry;
  clock: () => number;
  /** Resolves when the database answers (readiness). */
  ping(): Promise<void>;
  /** Migrations of the auth schema not applied yet (a schema behind the code is not ready). */
  pendingMigrations(): Promise<string[]>;
}
