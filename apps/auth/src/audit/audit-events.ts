/**
 * The closed list of the authorization server's audit events: a stable `event` name and one
 * field set per event, enforced by the auditor (auditor.ts). Rules:
 * - fields are identifiers (account, client, device, push ids, IP), never credentials;
 * - the reasons a step refuses are closed unions named here, so a new reason is a change to this
 *   list (the passkey ones are re-exported by passkeys/passkey-policy.ts, which maps them to errors).
 */
import type { FederatedErrorCode } from '../errors/auth-error.ts';

/** Why a passkey ceremony was refused (passkeys/passkey-policy.ts maps each to an error). */
export type PasskeyRefusalReason = 'invalid_challenge' | 'unknown_credential' | 'foreign_credential' | 'verification_failed' | 'user_not_verified' | 'counter_regression';

/** The stable error codes of the passkey refusals (several reasons may share one, so nothing leaks). */
export type PasskeyErrorCode = 'passkey_challenge_invalid' | 'passkey_unknown' | 'passkey_invalid' | 'passkey_user_not_verified' | 'passkey_cloned';

/** Where a credential change was made: the login's TOTP enrollment, or the signed-in devices page. */
export type AuditVia = 'totp_enrollment' | 'device_enrollment' | 'devices_page';

/** The error a refused token exchange was answered (RFC 8693 §2.2.2, RFC 6749 §5.2); `other` for anything else. */
export type TokenExchangeRefusal = 'invalid_request' | 'invalid_client' | 'unauthorized_client' | 'invalid_grant' | 'invalid_target' | 'invalid_scope' | 'other';

/**
 * Why a federated sign-in (federation/) ended without a session: the refusal the user saw
 * (errors/auth-error.ts), or a disabled account.
 */
export type FederatedFailureReason = Exclude<FederatedErrorCode, 'unknown_provider' | 'already_linked' | 'last_sign_in_method'> | 'account_disabled';

/** Who made an administrative change (admin/user-admin.ts): `actor_kind` and `actor` on every such event. */
export type ActorFields = {
  actor_kind: 'operator' | 'account' | 'client';
  /** The operator's name (`cli` for authctl), the acting account's id, or the client's id (admin API machine token). */
  actor: string;
};

/**
 * The fields of each event. `login.lockout` (a lock starts, or an attempt is refused during one)
 * and `login.throttled` (an attempt refused during a progressive delay, with the seconds left)
 * name the typed username on both steps (it may match no account), plus the account on the
 * second-factor step, and say whether the browser was a known device of the account
 * (regulation/known-device.ts).
 */
export interface AuditFields {
  'login.password.success': { account_id: string; ip: string };
  'login.password.failure': { username: string; ip: string };
  'login.mfa.success':
    | { account_id: string; ip: string; method: 'totp' | 'recovery' }
    | { account_id: string; ip: string; method: 'push'; push_id: string }
    | { account_id: string; ip: string; method: 'passkey'; credential_id: string };
  'login.mfa.failure': { account_id: string; ip: string; method: 'totp' | 'push' | 'recovery' | 'passkey'; reason: 'invalid_code' | 'code_replayed' | PasskeyErrorCode };
  'login.mfa.enrolled': { account_id: string };
  /** "Start over" on the TOTP enrollment page: the pending key was replaced by a new one. */
  'login.mfa.enrollment_restarted': { account_id: string; ip: string };
  'login.lockout':
    | { username: string; ip: string; step: 'password'; known_device: boolean }
    | { username: string; account_id: string; ip: string; step: 'mfa'; known_device: boolean }
    | { username: string; account_id: string; ip: string; step: 'passkey'; known_device: boolean };
  'login.throttled':
    | { username: string; ip: string; step: 'password'; known_device: boolean; retry_after: number }
    | { username: string; account_id: string; ip: string; step: 'mfa'; known_device: boolean; retry_after: number }
    | { username: string; account_id: string; ip: string; step: 'passkey'; known_device: boolean; retry_after: number };
  /** Passwordless sign-in: a passkey with user verification stood for both factors. */
  'login.passkey.success': { account_id: string; credential_id: string; ip: string };
  'login.passkey.failure': { ip: string; reason: PasskeyRefusalReason; account_id?: string; credential_id?: string };
  'login.account_disabled': { account_id: string; ip: string };
  /** The account-selection step (prompt=select_account): `continue` as the session's account, or sign in with `another`. */
  'login.account_selected': { account_id: string; client_id: string; ip: string; choice: 'continue' | 'another' };
  'token.issued': { client_id: string | undefined; grant_type: string };
  /**
   * A JWT access token revoked at the revocation endpoint names its client and jti; oidc-provider's
   * destroy events of opaque tokens name neither (an opaque token's id is the token itself).
   */
  'token.revoked': { token_type: 'access_token' | 'refresh_token'; client_id?: string; jti?: string };
  'grant.revoked': { grant_id: string };
  /** Token exchange (RFC 8693, oidc/token-exchange.ts): the acting client, the user, whose token it was, the new token's audience, scopes and jti. */
  'token.exchange.issued': { client_id: string; account_id: string; subject_client_id: string; audience: string; scope: string; jti: string };
  /** A refused token exchange: the acting client (absent when it did not authenticate) and the error answered. */
  'token.exchange.refused': { client_id: string | undefined; error: TokenExchangeRefusal };
  'session.logout': { client_id: string | undefined };
  /** "Sign out everywhere" on the page after a sign-out: the account's other sessions and grants ended. */
  'session.logout.everywhere': { account_id: string; ip: string; sessions: number; grants: number };
  /** The device authorization grant (RFC 8628, oidc/device-flow.ts): a user approved a device's request at /activate, after signing in. */
  'device.approved': { client_id: string; account_id: string; ip: string };
  /** A user denied a device's request at /activate (Deny on the confirmation or on the consent page). */
  'device.denied': { client_id: string; ip: string };
  /** A user code that matched no request was entered at /activate: a counted guess (oidc/user-code-regulation.ts). */
  'device.user_code.failure': { ip: string };
  /**
   * A back-channel logout token the client did not take (sessions/backchannel-logout.ts): no answer
   * in time, no connection, or a status other than 200/204 (`status`); `retried` says whether
   * another attempt follows.
   */
  'session.backchannel_logout.failed': { client_id: string; attempt: number; reason: 'timeout' | 'network' | 'status'; status?: number; retried: boolean };
  /**
   * A delivery still waiting for its retry when the server shut down (the queue is in memory):
   * `attempts` made, the next one `due_at`; the session itself had already ended.
   */
  'session.backchannel_logout.dropped': { client_id: string; attempts: number; due_at: string };
  'push.sent': { account_id: string; push_id: string; ip: string };
  'push.rate_limited': { account_id: string; ip: string };
  'push.approved': { account_id: string; push_id: string; device_id: string };
  'push.denied': { account_id: string; push_id: string; device_id: string };
  'push.expired': { account_id: string; push_id: string };
  /** The user reported a push their device refused as a sign-in they did not start ("this wasn't me"). */
  'push.reported': { account_id: string; push_id: string; device_id: string; refusal: 'denied' | 'number_mismatch'; ip: string };
  'push.report.refused': { reason: 'forged_signature' | 'unknown_device' | 'foreign_device' | 'not_refused'; push_id: string; device_id: string; account_id: string | undefined; ip: string };
  'push.answer.refused': {
    reason: 'forged_signature' | 'unknown_device' | 'foreign_device' | 'expired' | 'already_decided' | 'number_mismatch';
    push_id: string;
    device_id: string;
    account_id: string | undefined;
    ip: string;
  };
  'device.enrollment.issued': { account_id: string; ip: string };
  'device.enrolled': { account_id: string; device_id: string; ip: string };
  'device.enrollment.refused': { reason: 'forged_signature' | 'invalid_code' | 'too_many_attempts'; ip: string };
  'device.removed': { account_id: string; device_id: string; via: 'devices_page' };
  'device.request.refused': { reason: 'unknown_device' | 'stale_timestamp' | 'forged_signature' | 'replayed_nonce'; device_id: string; ip: string };
  'recovery.issued': { account_id: string; via: AuditVia };
  'recovery.used': { account_id: string; ip: string };
  /** "I have saved them": the user confirmed saving the recovery codes shown after an enrollment. */
  'recovery.saved': { account_id: string; ip: string };
  'passkey.registered': { account_id: string; credential_id: string; device_type: string; ip: string };
  'passkey.registration.refused': { account_id: string; reason: PasskeyRefusalReason | 'already_registered'; ip: string };
  'passkey.removed': { account_id: string; credential_id: string; via: 'devices_page' };
  /** A use of a passkey second factor or sign-in whose counter did not grow: refused, possibly a copy. */
  /** Operator changes to an account (admin/user-admin.ts). */
  /** A new password; every session and grant of the account ended: how many of each. */
  'admin.user.password_set': ActorFields & { account_id: string; sessions: number; grants: number };
  /** Sign-in refused from now on; every session and grant ended, every access token revoked by subject. */
  'admin.user.disabled': ActorFields & { account_id: string; sessions: number; grants: number };
  /** The account and its data deleted; sessions and grants ended, access tokens revoked by subject. */
  'admin.user.removed': ActorFields & { account_id: string; sessions: number; grants: number };
  'admin.user.enabled': ActorFields & { account_id: string };
  /** Failure counters of the account and its second factor deleted: how many failures were cleared. */
  'admin.user.unlocked': ActorFields & { account_id: string; cleared: number };
  /** Every SSO session and grant of the account ended: how many of each. */
  'admin.user.signed_out': ActorFields & { account_id: string; sessions: number; grants: number };
  'passkey.clone_suspected': { account_id: string; credential_id: string; stored_counter: number; presented_counter: number; ip: string };
  // admin-api: the user service's new verbs and the admin API's key rotation (admin/user-admin.ts, admin/http/).
  /** An operator created the account; `password_set` false: it has no usable password yet. */
  'admin.user.created': ActorFields & { account_id: string; password_set: boolean };
  /** Profile or groups changed: the names of the fields changed (comma-separated), never their values. */
  'admin.user.updated': ActorFields & { account_id: string; fields: string };
  /** TOTP secret, authenticator devices, passkeys and recovery codes removed: how many of each (not `recovery_codes`: a redacted name). */
  'admin.user.second_factors_reset': ActorFields & { account_id: string; totp: boolean; devices: number; passkeys: number; recovery_codes_removed: number; sessions: number; grants: number };
  /** One grant of the account ended (its refresh tokens and access tokens with it). */
  'admin.user.grant_revoked': ActorFields & { account_id: string; grant_id: string };
  /** Every sealed secret re-encrypted under the keyring's first key (`authctl secrets rekey`, secrets/rekey.ts): how many, and how many no key opened. */
  'secrets.rekeyed': ActorFields & { key_id: string; rekeyed: number; unreadable: number };
  /** Secrets sealed under a lost key replaced (secrets/recover-lost-key.ts): users reset, signing keys deleted, client secrets re-issued. */
  'secrets.lost_key_recovered': ActorFields & { users: number; signing_keys: number; clients: number; identity_providers?: number };
  /** A signing key rotation made through the admin API (authctl keys rotate logs keys.* lines). */
  'admin.keys.rotated': ActorFields & { kid: string; retired: number };
  // account-page: the self-service account page (account/) and password-reset links (admin/password-reset.ts).
  /** The user changed their password on the account page; their other sessions and grants ended. */
  'account.password_changed': { account_id: string; ip: string; sessions: number; grants: number };
  'account.password_change.refused': { account_id: string; ip: string; reason: 'invalid_current_password' };
  /** The user replaced their TOTP secret on the account page, after proving the current factor; their other sessions and grants ended. */
  'account.totp_reenrolled': { account_id: string; ip: string; sessions: number; grants: number };
  'account.totp_reenroll.refused': { account_id: string; ip: string; step: 'current' | 'confirm'; reason: 'invalid_code' | 'code_replayed' | 'invalid_current_password' };
  /** "Sign out other sessions" on the account page. */
  /** The second factor offered first at sign-in, set on the account page (`last_used`: the one used last). */
  /** The user asked to change their e-mail address; the link went to the new one. */
  'account.email_change.requested': { account_id: string; ip: string };
  /** The new address's link was opened: the account uses it now. */
  'account.email_changed': { account_id: string; ip: string };
  'account.preferred_factor_set': { account_id: string; ip: string; factor: 'totp' | 'push' | 'passkey' | 'last_used' };
  'account.sessions.signed_out': { account_id: string; ip: string; sessions: number; grants: number };
  /** One other session ended from the account page's Sessions list. */
  'account.session.signed_out': { account_id: string; ip: string; grants: number };
  /** An operator issued a one-time password-reset link (its expiry, never the token). */
  'admin.user.reset_link_issued': ActorFields & { account_id: string; expires_at: string };
  /**
   * "Forgot password?": someone asked for a reset link by username or e-mail. `account_id` is absent
   * when nothing matched; `sent` is false when nothing matched or the account's own limit held the mail back.
   */
  'password_reset.requested': { account_id?: string; ip: string; sent: boolean };
  /** A reset link was used: new password set, every session ended, lockouts cleared. */
  'account.password_reset': { account_id: string; ip: string; sessions: number; grants: number };
  // client-lifecycle: operator changes to a client (admin/client-admin.ts); never a secret.
  'admin.client.created': ActorFields & { client_id: string; public: boolean };
  /** `fields`: the registration fields given, comma-separated (redirect_uris,post_logout_redirect_uris,grant_types,name). */
  'admin.client.updated': ActorFields & { client_id: string; fields: string };
  /** A new secret; the replaced one works `grace_seconds` more, until `previous_expires_at` (ISO; absent for 0). */
  'admin.client.secret_rotated': ActorFields & { client_id: string; grace_seconds: number; previous_expires_at?: string };
  'admin.client.removed': ActorFields & { client_id: string };
  /** The access policy changed (authctl scope policy, client scopes): what it says now. */
  'admin.scope.policy_set': ActorFields & { scope: string; groups: string };
  'admin.scope.policy_cleared': ActorFields & { scope: string };
  /** A client's allowed scopes: space-separated, or `*` when the limit was lifted (--any). */
  'admin.client.scopes_set': ActorFields & { client_id: string; scopes: string };
  // identity-provider registry: operator changes to the upstream providers (federation/identity-provider-service.ts); never a secret.
  'identity_provider.created': ActorFields & { provider: string; kind: 'oidc' | 'oauth2'; preset: string };
  /** `fields`: the settings given, comma-separated by their JSON names (client_secret / private_jwk when replaced, never their values). */
  'identity_provider.updated': ActorFields & { provider: string; fields: string };
  /** `links`: the account links to the provider removed with it. */
  'identity_provider.removed': ActorFields & { provider: string; links: number };
  // consent: the consent page (interactions/consent.ts) and the account page's connected apps (account/connected-apps.ts).
  /** The user allowed a client these scopes (space-separated); they are added to the consent record. */
  'consent.granted': { account_id: string; client_id: string; ip: string; scopes: string };
  /** The user denied a client on the consent page: the client received access_denied. */
  'consent.denied': { account_id: string; client_id: string; ip: string };
  /** The user revoked a client on the account page: the record and that client's grants ended. */
  'consent.revoked': { account_id: string; client_id: string; ip: string; grants: number };
  /**
   * A user signed in with an upstream identity provider and was matched to the account by its
   * link; `upstream_mfa`: the upstream's amr/acr stood for the second factor (else a Gatehouse
   * factor follows, audited as usual).
   */
  'login.federated': { account_id: string; provider: string; ip: string; upstream_mfa: boolean };
  /** A federated sign-in refused: the user saw a page saying why. */
  'login.federated.failure': { provider: string; ip: string; reason: FederatedFailureReason };
  /** An account created on a first federated sign-in (just-in-time provisioning), linked to its upstream user. */
  'account.provisioned': { account_id: string; provider: string; ip: string };
  /**
   * An upstream user linked to a local account: by the user, after proving the account with its
   * password and second factor (`sign_in`), or by an operator.
   */
  'account.linked': { account_id: string; provider: string; ip: string; via: 'sign_in' } | ({ account_id: string; provider: string; via: 'operator' } & ActorFields);
  /** A link removed: by the user on the account page, or by an operator. */
  'account.unlinked': { account_id: string; provider: string; ip: string; via: 'account_page' } | ({ account_id: string; provider: string; via: 'operator' } & ActorFields);
}

export type AuditEvent = keyof AuditFields;
