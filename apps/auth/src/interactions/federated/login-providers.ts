/**
 * What the login page shows of the upstream identity providers. Rules:
 * - one button per enabled provider, in the directory's order;
 * - the page's forms may lead to each provider's authorization endpoint (a button, or home-realm
 *   discovery from the password form, answers with a redirect there), so those origins join the
 *   client's in the page's form-action (http/security-headers.ts);
 * - `homeRealm` when some provider has home-realm domains.
 */
import type { FederatedProviderButton } from '../../views/federated-pages.ts';
import type { HandlerServices } from '../deps.ts';

export interface LoginProviders {
  buttons: FederatedProviderButton[];
  homeRealm: boolean;
  origins: string[];
}

export type LoginProvidersDeps = Pick<HandlerServices, 'federation'>;

export async function loginProviders(deps: LoginProvidersDeps): Promise<LoginProviders> {
  const enabled = await deps.federation.directory.enabled();
  return {
    buttons: enabled.map((provider) => ({ slug: provider.slug, displayName: provider.displayName })),
    homeRealm: enabled.some((provider) => provider.homeRealmDomains.length > 0),
    origins: [...new Set(enabled.flatMap((provider) => deps.federation.upstream.authorizationOrigins(provider)))],
  };
}
