import type { Provider } from 'oidc-provider';
import type { AuthConfig } from '../config/config.ts';
import type { AccountStore } from '../accounts/account-store.ts';
import type { Regulator } from '../regulation/regulator.ts';
import type { Totp } from '../mfa/totp.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Logger } from '../logging/logger.ts';

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
}
