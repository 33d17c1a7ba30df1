/**
 * "Back to <app>" on the account page: the app the user came from. Rules:
 * - an app links to the account page with `client_id` and `return_to`; the pair is kept only
 *   when `client_id` names a registered client and `return_to` is exactly one of its redirect
 *   URIs or post-logout redirect URIs, or the origin or the folder (with a trailing slash) of
 *   one of them (https://app/ and https://app/base/ for https://app/base/callback):
 *   never any other address, so the link cannot send the user to a site of someone's choosing;
 * - a kept pair lives in a signed cookie (`gatehouse.account.return`, path /account, 12 hours;
 *   http/signed-cookie.ts), so every section page shows the link; a refused pair changes nothing;
 * - every page checks the pair again against the client as it is now (a client removed or
 *   changed since loses its link);
 * - the link names the client by its display name.
 */
import type { Context } from 'koa';
import { ACCOUNT_PATH } from '../clients/account-client.ts';
import type { ClientRecord } from '../clients/client-store.ts';
import { signedCookie } from '../http/signed-cookie.ts';

export interface ReturnTarget {
  /** The client's display name. */
  name: string;
  url: string;
}

interface Kept {
  clientId: string;
  url: string;
}

export interface ReturnTargetDeps {
  clients: { find(clientId: string): Promise<ClientRecord | undefined> };
  config: { cookieKeys: readonly string[] };
}

const MAX = 2000;

/** The origin of `uri` and the folder it sits in ("https://app/" and "https://app/base/" of https://app/base/callback). */
function basesOf(uri: string): string[] {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? [`${url.origin}/`, new URL('./', url).href] : [];
  } catch {
    return [];
  }
}

/** The addresses `client` may be returned to. */
export function returnAddresses(client: Pick<ClientRecord, 'redirectUris' | 'postLogoutRedirectUris'>): Set<string> {
  const uris = [...client.redirectUris, ...client.postLogoutRedirectUris];
  return new Set([...uris, ...uris.flatMap(basesOf)]);
}

function parse(value: unknown): Kept | undefined {
  const v = value as Partial<Kept> | null;
  return v && typeof v.clientId === 'string' && typeof v.url === 'string' ? { clientId: v.clientId, url: v.url } : undefined;
}

const cookie = (keys: readonly string[]) => signedCookie({ name: 'gatehouse.account.return', path: ACCOUNT_PATH, maxAge: 12 * 3600_000, keys, parse });

async function checked(deps: ReturnTargetDeps, kept: Kept): Promise<ReturnTarget | undefined> {
  if (kept.clientId.length > 200 || kept.url.length > MAX) return undefined;
  const client = await deps.clients.find(kept.clientId);
  if (!client || !returnAddresses(client).has(kept.url)) return undefined;
  return { name: client.name || client.clientId, url: kept.url };
}

/** Keeps the request's `client_id` + `return_to` when they pass; then answers the page's target. */
export async function returnTarget(ctx: Context, deps: ReturnTargetDeps): Promise<ReturnTarget | undefined> {
  const c = cookie(deps.config.cookieKeys);
  const { client_id: clientId, return_to: url } = ctx.query;
  if (typeof clientId === 'string' && typeof url === 'string') {
    const target = await checked(deps, { clientId, url });
    if (target) {
      c.set(ctx, { clientId, url });
      return target;
    }
  }
  const kept = c.read(ctx);
  return kept ? checked(deps, kept) : undefined;
}
