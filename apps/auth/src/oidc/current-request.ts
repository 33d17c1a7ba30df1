/**
 * The request oidc-provider is serving, from its async context (`Provider.ctx`): set inside its
 * own endpoints (token, authorization, introspection, ...), undefined anywhere else (our own
 * routes, the admin API, the CLI, timers started outside a request).
 */
import { Provider } from 'oidc-provider';

export function currentOidcRequest(): object | undefined {
  return Provider.ctx as object | undefined;
}
