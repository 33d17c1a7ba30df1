/**
 * The local profile an upstream user maps to. Rules:
 * - the username comes from the provider's username claim, lower-cased, with every character
 *   a username may not hold ([a-z0-9._@-]) turned into `-`, at most 64 characters; without one
 *   it is `user`; provisioning de-duplicates it (provision-account.ts);
 * - the e-mail is kept only when the upstream says it is verified;
 * - the name is the name claim, else the username;
 * - groups: the upstream groups claim (a list, or one string) mapped through the provider's table;
 *   upstream groups the table does not name give nothing, so an upstream cannot grant a local
 *   group the operator did not map.
 */
import type { UpstreamIdentity } from './upstream-client.ts';
import type { UpstreamProvider } from './upstream-provider.ts';

export interface UpstreamProfile {
  username: string;
  /** Verified only. */
  email?: string;
  name: string;
  groups: string[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : typeof value === 'number' ? String(value) : undefined);

export function usernameFrom(value: string | undefined): string {
  const cleaned = (value ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9._@-]/g, '-')
    .slice(0, 64);
  return cleaned.replace(/^-+|-+$/g, '') || 'user';
}

/** The local groups an upstream user's groups map to, in the table's order, each once. */
export function mapGroups(provider: Pick<UpstreamProvider, 'groupMappings'>, upstream: unknown): string[] {
  const names = Array.isArray(upstream) ? upstream.filter((value): value is string => typeof value === 'string') : typeof upstream === 'string' ? [upstream] : [];
  const local = new Set<string>();
  for (const row of provider.groupMappings) if (names.includes(row.upstream)) local.add(row.group);
  return [...local];
}

export function upstreamProfile(provider: Pick<UpstreamProvider, 'claims' | 'groupMappings'>, identity: UpstreamIdentity): UpstreamProfile {
  const { claims } = identity;
  const mapping = provider.claims;
  const username = usernameFrom(text(claims[mapping.username]));
  const name = (text(claims[mapping.name]) ?? username).slice(0, 128);
  return {
    username,
    ...(identity.verifiedEmail ? { email: identity.verifiedEmail } : {}),
    name,
    groups: mapping.groups ? mapGroups(provider, claims[mapping.groups]) : [],
  };
}
