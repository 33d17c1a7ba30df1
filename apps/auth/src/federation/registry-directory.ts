/**
 * The sign-in pages' view of the provider registry (identity-provider-service.ts): enabled
 * providers only; an unknown or disabled slug is no provider at all.
 */
import type { IdentityProviderService } from './identity-provider-service.ts';
import type { ProviderDirectory } from './provider-directory.ts';

export function registryDirectory(registry: Pick<IdentityProviderService, 'get' | 'enabled' | 'forEmailDomain' | 'credentials'>): ProviderDirectory {
  return {
    enabled: () => registry.enabled(),
    async find(slug) {
      try {
        const provider = await registry.get(slug);
        return provider.enabled ? provider : undefined;
      } catch (error) {
        if ((error as { code?: unknown }).code === 'unknown_provider') return undefined;
        throw error;
      }
    },
    forEmailDomain: (domain) => registry.forEmailDomain(domain),
    credentials: (slug) => registry.credentials(slug),
  };
}
