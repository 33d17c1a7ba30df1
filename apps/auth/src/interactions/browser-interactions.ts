/**
 * Several sign-ins in one browser (one per tab), and the way back from one that cannot go on. Rules:
 * - oidc-provider binds a browser to ONE interaction (the signed cookie `gh_auth_interaction`, and
 *   `gh_auth_resume`, both of path `/`): a second tab's authorization request replaces the first's;
 * - so the browser also keeps the last five interactions it started, with their client ids, in a
 *   signed, httpOnly, SameSite=Lax cookie `gh_auth_interactions` of path `/` (a day long, so an
 *   expired sign-in still knows its app); it is written when oidc-provider binds a new interaction;
 * - a form (or page) of an interaction in that list, sent while the cookies name another one,
 *   binds the browser to the form's interaction again (both cookies, and this request's own
 *   cookies, so the rest of the request reads it): each tab finishes its own sign-in;
 * - an interaction this browser did not start is never bound (interaction_expired);
 * - a sign-in that cannot go on (expired, tampered, no cookie) leads on: "Start again" with the
 *   same authorization request when its interaction is still stored and this browser started it
 *   (the app's state and PKCE stay valid), else "Back to <app>" at the origin of the app's first
 *   redirect URI (its own start of the sign-in), when the app is known.
 */
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { CookieSigner } from '@gatehouse/http';
import type { WayOn } from '../errors/auth-error.ts';

export const INTERACTION_COOKIE = 'gh_auth_interaction';
export const RESUME_COOKIE = 'gh_auth_resume';
const STARTED_COOKIE = 'gh_auth_interactions';
const REMEMBERED = 5;
const STARTED_MAX_AGE_MS = 24 * 3600 * 1000;

interface Started {
  uid: string;
  clientId: string;
}

/** The cookie jar of a Koa context (the provider's, whose keys sign). */
type Cookies = Context['cookies'];

function readStarted(cookies: Cookies): Started[] {
  const value = cookies.get(STARTED_COOKIE, { signed: true });
  if (!value) return [];
  try {
    const list: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!Array.isArray(list)) return [];
    return list.flatMap((entry) => (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string' ? [{ uid: entry[0], clientId: entry[1] }] : []));
  } catch {
    return [];
  }
}

/**
 * Called in oidc-provider's context when it binds the browser to a new interaction: remembers
 * it (with its client) among the browser's started interactions.
 */
export function rememberStarted(cookies: Cookies, set: Cookies['set'], uid: string, clientId: string): void {
  const list = [{ uid, clientId }, ...readStarted(cookies).filter((entry) => entry.uid !== uid)].slice(0, REMEMBERED);
  const value = Buffer.from(JSON.stringify(list.map((entry) => [entry.uid, entry.clientId])), 'utf8').toString('base64url');
  set(STARTED_COOKIE, value, { path: '/', httpOnly: true, sameSite: 'lax', signed: true, maxAge: STARTED_MAX_AGE_MS });
}

/** Replaces (or adds) cookies of the request itself, so contexts built later from it read them. */
function replaceRequestCookies(ctx: Context, values: Record<string, string>): void {
  const kept = (ctx.req.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair && !(pair.slice(0, pair.indexOf('=')) in values));
  ctx.req.headers.cookie = [...kept, ...Object.entries(values).map(([name, value]) => `${name}=${value}`)].join('; ');
}

/**
 * Binds the browser to `uid` when it started that interaction and its cookies name another one
 * (another tab started a sign-in since). Answers whether the browser is bound to `uid`.
 */
export async function bindStartedInteraction(provider: Provider, ctx: Context, uid: string): Promise<boolean> {
  const cookies = provider.createContext(ctx.req, ctx.res).cookies;
  if (cookies.get(INTERACTION_COOKIE, { signed: true }) === uid) return true;
  if (!readStarted(cookies).some((entry) => entry.uid === uid)) return false;
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return false;
  // The interaction's expiry is oidc-provider's (epoch seconds of its own clock), as for its cookies.
  const maxAge = Math.max(0, interaction.exp * 1000 - Date.now());
  const signer = provider.keys as unknown as CookieSigner;
  const values: Record<string, string> = {};
  for (const name of [INTERACTION_COOKIE, RESUME_COOKIE]) {
    cookies.set(name, uid, { path: '/', httpOnly: true, sameSite: 'lax', signed: true, maxAge });
    values[name] = uid;
    values[`${name}.sig`] = signer.sign(`${name}=${uid}`);
  }
  replaceRequestCookies(ctx, values);
  return true;
}

/** The way on from a sign-in that cannot go on (see the rules above); undefined when the app is unknown. */
export async function wayBack(provider: Provider, ctx: Context, uid: string | undefined): Promise<WayOn | undefined> {
  try {
    const cookies = provider.createContext(ctx.req, ctx.res).cookies;
    const id = uid ?? cookies.get(INTERACTION_COOKIE, { signed: true });
    if (!id) return undefined;
    const started = readStarted(cookies).find((entry) => entry.uid === id);
    const interaction = await provider.Interaction.find(id);
    if (interaction && started) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(interaction.params)) if (typeof value === 'string') query.set(name, value);
      return { label: 'Start again', says: { way: 'startAgain' }, href: `${AUTH_ROUTES.authorize}?${query.toString()}` };
    }
    const clientId = started?.clientId ?? (typeof interaction?.params.client_id === 'string' ? interaction.params.client_id : undefined);
    const app = clientId ? await appHome(provider, clientId) : undefined;
    if (!app) return undefined;
    return { label: `Back to ${app.name}`, says: { way: 'backTo', app: app.name }, href: app.href };
  } catch {
    return undefined;
  }
}

/** The client of `uid` when this browser started that interaction (its cookie of started ones). */
export function startedClient(provider: Provider, ctx: Context, uid: string): string | undefined {
  return readStarted(provider.createContext(ctx.req, ctx.res).cookies).find((entry) => entry.uid === uid)?.clientId;
}

/**
 * A registered app's display name and its home: the origin of its first registered redirect URI,
 * where the app starts its own sign-in. Only registered addresses, never one from a request;
 * undefined for an unknown app or one without a web (http, https) redirect URI.
 */
export async function appHome(provider: Provider, clientId: string): Promise<{ name: string; href: string } | undefined> {
  const client = await provider.Client.find(clientId);
  const first = URL.parse(client?.redirectUris?.[0] ?? '');
  if (!client || !first || (first.protocol !== 'https:' && first.protocol !== 'http:')) return undefined;
  return { name: client.clientName ?? client.clientId, href: `${first.origin}/` };
}
