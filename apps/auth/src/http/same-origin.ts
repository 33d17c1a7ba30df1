/**
 * State-changing posts of Gatehouse's own pages (account page, devices, consent, account
 * selection) must come from the issuer's origin, on top of the session cookie being SameSite=Lax.
 * Rules:
 * - Fetch metadata (Sec-Fetch-Site) decides when the browser sends it: only `same-origin` and
 *   `none` pass;
 * - otherwise the Origin header does: absent, `null` or the issuer's origin pass. Our pages send
 *   `Referrer-Policy: no-referrer`, under which browsers post `Origin: null` from our own forms,
 *   so `null` alone is not taken as cross-site (the SameSite=Lax session cookie still is not
 *   sent on a cross-site post);
 * - a cross-site post is 403 forbidden.
 */
import type { Context } from 'koa';
import type { AuthConfig } from '../config/config.ts';
import { AuthError } from '../errors/auth-error.ts';

/** The page's own origin, which state-changing posts must come from. */
export type OriginDeps = { config: Pick<AuthConfig, 'issuer'> };

export function requireSameOrigin(ctx: Context, deps: OriginDeps): void {
  const site = ctx.get('sec-fetch-site');
  const origin = ctx.get('origin');
  const crossSite = site
    ? site !== 'same-origin' && site !== 'none'
    : Boolean(origin) && origin !== 'null' && origin !== new URL(deps.config.issuer).origin;
  if (crossSite) throw new AuthError(403, 'forbidden', 'Cross-site requests to this page are refused.');
}
