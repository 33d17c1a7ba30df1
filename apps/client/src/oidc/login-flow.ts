/**
 * Starting a login: the 302 to the authorization endpoint.
 * Rules:
 * - fresh state, nonce and PKCE verifier per request, kept server-side (login-store.ts) with the
 *   local page to return to; the browser receives only `state` (in the URL) and its login cookie;
 * - the login cookie `<client id>.login` (random, signed, httpOnly, SameSite=Lax, Secure behind
 *   https) binds the pending login to this browser; it is reused while valid so several tabs can
 *   log in at once;
 * - `returnTo` must be a path of this app (no scheme, no host, no `//`), else `/`;
 * - starting a login creates no session.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import * as oidc from 'openid-client';
import type { ClientConfig } from '../config/config.ts';
import type { LoginStore } from '../sessions/login-store.ts';
import { hashKey } from '../sessions/session-store.ts';
import type { RelyingParty } from './relying-party.ts';
import type { Logger } from '../logging/logger.ts';
import { audit } from '../logging/logger.ts';

export interface LoginFlowDeps {
  config: ClientConfig;
  relyingParty: RelyingParty;
  logins: LoginStore;
  logger: Logger;
}

export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || value.length > 512) return '/';
  return value;
}

export function loginCookieOptions(ctx: Context, config: ClientConfig) {
  return { httpOnly: true, sameSite: 'lax' as const, signed: true, secure: ctx.secure, path: '/', maxAge: config.loginTtl * 1000, overwrite: true };
}

/** The hash of this browser's login cookie, or undefined when it has none (or a forged one). */
export function browserBinding(ctx: Context, config: ClientConfig): string | undefined {
  const value = ctx.cookies.get(config.cookies.login, { signed: true });
  return value ? hashKey(value) : undefined;
}

export function createLoginFlow(deps: LoginFlowDeps) {
  const { config } = deps;
  return async function startLogin(ctx: Context, options: { returnTo: string; silent?: boolean }): Promise<void> {
    let browser = ctx.cookies.get(config.cookies.login, { signed: true });
    if (!browser) browser = randomBytes(32).toString('base64url');
    // Set on every login so the cookie outlives the pending login it binds.
    ctx.cookies.set(config.cookies.login, browser, loginCookieOptions(ctx, config));

    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const codeChallenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
    const url = await deps.relyingParty.authorizationUrl({ state, nonce, codeChallenge, ...(options.silent ? { prompt: 'none' as const } : {}) });
    await deps.logins.save(
      { state, browser: hashKey(browser), nonce, codeVerifier, returnTo: safeReturnTo(options.returnTo), silent: Boolean(options.silent) },
      config.loginTtl,
    );
    if (!options.silent) audit(deps.logger, 'login.started', {});
    ctx.status = 302;
    ctx.redirect(url.href);
  };
}

export type StartLogin = ReturnType<typeof createLoginFlow>;
