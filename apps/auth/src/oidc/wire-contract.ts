/**
 * Adapts oidc-provider's redirect hops to Gatehouse's wire contract (docs/spec.md §4.2 "Login operations"),
 * without weakening any check the library makes:
 * - `GET /oauth2/v1/authorize` (and the device flow's /activate confirmation and resume) that needs an account selection, a login or a consent answers 200
 *   with that step's page itself instead of a 303 to the interaction URL (so does a resume that
 *   needs the next step: the consent after a login, the login after "Use another account"); the
 *   interaction is created, stored and cookie-bound by oidc-provider exactly as usual; a resume
 *   inside a browser's form post keeps the 303 to that step (post/redirect/get,
 *   interactions/post-redirect-get.ts);
 * - the interaction and resume cookies are scoped to `/` instead of `/interaction/<uid>` and
 *   `/oauth2/v1/authorize/<uid>`, so `/login` and `/mfa/verify` receive them; they stay signed,
 *   httpOnly and SameSite=Lax, and the resume step still checks them; binding a new interaction
 *   also remembers it among the browser's started ones (interactions/browser-interactions.ts);
 * - redirects back to the client (a code, or an error such as login_required) are 302, not 303.
 */
import type { Context, Next } from 'koa';
import type { Provider } from 'oidc-provider';
import { COOKIE_NAMES } from './provider.ts';
import { rememberStarted } from '../interactions/browser-interactions.ts';
import { resumesWithSeeOther } from '../interactions/post-redirect-get.ts';

/** The client of the request oidc-provider is handling (its authorization request's client_id). */
function clientIdOf(ctx: Context): string {
  const oidc = (ctx as Context & { oidc?: { client?: { clientId: string }; params?: Record<string, unknown> } }).oidc;
  return oidc?.client?.clientId ?? String(oidc?.params?.client_id ?? '');
}

const REDIRECTING_ROUTES = new Set(['authorization', 'resume', 'code_verification', 'device_resume']);
const ROOT_SCOPED = new Set([COOKIE_NAMES.interaction, `${COOKIE_NAMES.interaction}.sig`, COOKIE_NAMES.resume, `${COOKIE_NAMES.resume}.sig`]);

type CookieSet = Context['cookies']['set'];

export interface WireContractDeps {
  /** Renders the step (select_account, login, consent) of an interaction that oidc-provider just started (status 200). */
  renderInteraction(ctx: Context, provider: Provider, uid: string): Promise<void>;
}

export function wireContract(provider: Provider, deps: WireContractDeps) {
  return async function adaptHops(ctx: Context, next: Next): Promise<void> {
    const cookies = ctx.cookies;
    const set: CookieSet = cookies.set.bind(cookies);
    cookies.set = ((name: string, value?: string | null, options?: Parameters<CookieSet>[2]) => {
      // The browser keeps the interactions it started, so each tab finishes its own (browser-interactions.ts).
      if (name === COOKIE_NAMES.interaction && value) rememberStarted(cookies, set, value, clientIdOf(ctx));
      return set(name, value, ROOT_SCOPED.has(name) ? { ...options, path: '/' } : options);
    }) as CookieSet;

    await next();

    const route = (ctx as Context & { oidc?: { route?: string } }).oidc?.route;
    if (!route || !REDIRECTING_ROUTES.has(route) || ctx.status !== 303) return;
    const location = ctx.response.get('Location');
    const interaction = /^\/interaction\/([\w-]+)$/.exec(location);
    if (interaction && resumesWithSeeOther(ctx.req)) return;
    if (interaction) {
      ctx.remove('Location');
      await deps.renderInteraction(ctx, provider, interaction[1]!);
      return;
    }
    ctx.status = 302;
  };
}
