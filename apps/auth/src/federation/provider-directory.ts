/**
 * The identity providers as the sign-in pages see them: the enabled ones only (a disabled
 * provider has no button, no home realm, and its callbacks are refused), and the credentials of
 * one, opened for the request that sends them to its token endpoint.
 */
import type { UpstreamCredentials, UpstreamProvider } from './upstream-provider.ts';

export interface ProviderDirectory {
  /** The enabled providers, in the order of their buttons. */
  enabled(): Promise<UpstreamProvider[]>;
  /** The enabled provider with this slug. */
  find(slug: string): Promise<UpstreamProvider | undefined>;
  /** The enabled provider whose home realm holds this e-mail domain. */
  forEmailDomain(domain: string): Promise<UpstreamProvider | undefined>;
  credentials(slug: string): Promise<UpstreamCredentials>;
}
