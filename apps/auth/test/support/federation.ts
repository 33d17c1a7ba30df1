/**
 * Driving a federated sign-in over HTTP the way a browser does, with one cookie jar for
 * Gatehouse and one for the upstream (a browser keeps them apart by host).
 */
import { CookieJar, form, request, type HttpResponse } from './cookie-jar.ts';
import type { UpstreamUser } from './upstream-oidc.ts';
import { createAuditor } from '../../src/audit/auditor.ts';
import { createIdentityProviderService, type IdentityProviderService } from '../../src/federation/identity-provider-service.ts';
import type { IdentityProviderStore } from '../../src/federation/identity-provider-store.ts';
import type { AccountLinkStore } from '../../src/federation/account-link-store.ts';
import { createLogger } from '../../src/logging/logger.ts';

/**
 * The provider registry over a test server's store, as authctl uses it (its audit lines
 * unwritten). Without `links`, removing a provider removes no account link: pass the server's
 * `accountLinks` where a test removes one.
 */
export function providerRegistry(store: IdentityProviderStore, links: Pick<AccountLinkStore, 'removeByProvider'> = { removeByProvider: async () => 0 }): IdentityProviderService {
  return createIdentityProviderService({ store, links, audit: createAuditor({ logger: createLogger({ level: 'silent' }) }) });
}

/** The login page's uid (the hidden field of its forms). */
export function uidIn(html: string): string {
  const match = /name="uid" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error(`no uid in ${html.slice(0, 200)}`);
  return match[1];
}

/**
 * At the upstream oidc-provider: follows its redirects to its login page, signs the user in there
 * (or cancels), and returns the URL it sends the browser back to (Gatehouse's callback).
 */
export async function upstreamSignIn(up: CookieJar, authorizationUrl: string, user: Pick<UpstreamUser, 'username' | 'password'> | 'cancel'): Promise<string> {
  let response = await request(up, authorizationUrl);
  let url = authorizationUrl;
  for (let hops = 0; response.status === 303 || response.status === 302; hops += 1) {
    if (hops > 5) throw new Error('too many upstream redirects');
    url = new URL(response.location!, url).href;
    response = await request(up, url);
  }
  if (response.status !== 200) throw new Error(`upstream login page answered ${response.status}: ${response.text}`);
  const action = user === 'cancel' ? `${url}/abort` : `${url}/login`;
  let done: HttpResponse = await request(up, action, { method: 'POST', ...form(user === 'cancel' ? {} : { username: user.username, password: user.password }) });
  url = action;
  // The upstream resumes its authorization, then redirects to the callback.
  for (let hops = 0; hops < 5; hops += 1) {
    if (done.status !== 303 && done.status !== 302) throw new Error(`upstream answered ${done.status}: ${done.text}`);
    const next = new URL(done.location!, url).href;
    if (!next.startsWith(new URL(authorizationUrl).origin)) return next;
    url = next;
    done = await request(up, next);
  }
  throw new Error('the upstream never sent the browser back');
}
