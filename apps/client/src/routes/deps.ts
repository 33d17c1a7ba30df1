import type { ClientConfig } from '../config/config.ts';
import type { ApiClient } from '../api-client/api-client.ts';
import type { Logger } from '../logging/logger.ts';
import type { StartLogin } from '../oidc/login-flow.ts';
import type { RelyingParty } from '../oidc/relying-party.ts';
import type { LoginStore } from '../sessions/login-store.ts';

/** What the pages need; each takes the whole set so routes.ts wires them once. */
export interface RouteDeps {
  config: ClientConfig;
  relyingParty: RelyingParty;
  logins: LoginStore;
  startLogin: StartLogin;
  api: ApiClient;
  clock: () => number;
  logger: Logger;
}
