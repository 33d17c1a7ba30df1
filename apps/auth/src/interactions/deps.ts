import type { Provider } from 'oidc-provider';
import type { StreamRegistry } from '../http/stream-registry.ts';
import type { AuthConfig } from '../config/config.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { Regulator } from '../regulation/regulator.ts';
import type { Totp } from '../mfa/totp.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Logger } from '../logging/logger.ts';
import type { DeviceStore } from '../devices/device-store.ts';
import type { EnrollmentStore } from '../devices/enrollment-store.ts';
import type { PushStore } from '../push/push-store.ts';
import type { PushHub } from '../push/push-hub.ts';
import type { RecoveryCodeStore } from '../recovery/recovery-code-store.ts';
import type { AuthMetrics } from '../metrics/auth-metrics.ts';

/** What the login and second-factor steps need; `provider()` is the current provider (keys may reload). */
export interface InteractionDeps {
  config: AuthConfig;
  provider: () => Provider;
  accounts: AccountStore;
  regulator: Regulator;
  totp: Totp;
  box: SecretBox;
  logger: Logger;
  clock: () => number;
  devices: DeviceStore;
  enrollments: EnrollmentStore;
  pushes: PushStore;
  pushHub: PushHub;
  recoveryCodes: RecoveryCodeStore;
  /** Open SSE streams, ended with a retry hint on shutdown. */
  streams: StreamRegistry;
  metrics: AuthMetrics;
}
