import type { Mailer } from '../mail/mailer.ts';
import type { Provider } from 'oidc-provider';
import type { AuthConfig } from '../config/config.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { Logger } from '../logging/logger.ts';
import type { AuthMetrics } from '../metrics/auth-metrics.ts';
import type { AuthStores } from '../auth-stores.ts';
import type { BackchannelLogout } from '../sessions/backchannel-logout.ts';
import type { IdentityProviderService } from '../federation/identity-provider-service.ts';
import type { ProviderDirectory } from '../federation/provider-directory.ts';
import type { UpstreamClient } from '../federation/upstream-client.ts';

/**
 * Everything app.ts can hand the browser-facing handlers (interactions, authenticator): the
 * shared services plus the app's config, current provider, logger and metrics. No handler takes
 * all of it: each factory declares the `Pick` it uses, so it cannot reach a store it does not use.
 */
export interface HandlerServices extends AuthStores {
  config: AuthConfig;
  /** The current provider (signing keys may reload and rebuild it). */
  provider: () => Provider;
  logger: Logger;
  /** Where audit events are recorded (audit/auditor.ts). */
  audit: Auditor;
  metrics: AuthMetrics;
  /** Tells the clients of ended sessions (sessions/backchannel-logout.ts). */
  backchannelLogout: BackchannelLogout;
  /** The upstream identity providers (federation/identity-provider-service.ts), auditing as whoever acts. */
  identityProviders: IdentityProviderService;
  /** Sign-in with upstream identity providers: which ones, and the relying party that talks to them. */
  federation: { directory: ProviderDirectory; upstream: UpstreamClient };
  /** Sends mail (mail/mailer.ts); undefined when none is configured (production without AUTH_SMTP_URL). */
  mailer: Mailer | undefined;
}
