/**
 * Home-realm discovery on the password step. Rules:
 * - only a browser's form post (not a JSON caller: the seed's wire contract for local users stays
 *   as it is) whose username is an e-mail address;
 * - its domain (lower-cased) in an enabled provider's home-realm domains sends the browser to
 *   that provider, whatever the password field holds (it is not read);
 * - any other username is the password step's, unchanged.
 */
import type { UpstreamProvider } from '../../federation/upstream-provider.ts';
import type { ParsedBody } from '../../http/read-body.ts';
import type { HandlerServices } from '../deps.ts';

export type HomeRealmDeps = Pick<HandlerServices, 'federation'>;

export async function homeRealmProvider(deps: HomeRealmDeps, body: ParsedBody): Promise<UpstreamProvider | undefined> {
  if (body.json) return undefined;
  const username = (body.fields.username ?? '').trim();
  const at = username.lastIndexOf('@');
  if (at <= 0 || at === username.length - 1 || username.length > 254) return undefined;
  return deps.federation.directory.forEmailDomain(username.slice(at + 1).toLowerCase());
}
