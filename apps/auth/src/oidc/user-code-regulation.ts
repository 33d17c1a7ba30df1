/**
 * Guessing user codes at /activate (RFC 8628 §5.1). Rules:
 * - a code that is not found counts as a failed attempt against the client address
 *   (`ip:<address>`, the sign-in regulation's address rule and budget, regulation/regulator.ts),
 *   audited `device.user_code.failure`;
 * - while that key is refused, a submitted code is not looked at: 429 with Retry-After and a
 *   page that says how long to wait and links back to the code form;
 * - showing the form, a found code, and the user's own Deny count nothing.
 */
import type { Context, Next } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { Regulator } from '../regulation/regulator.ts';
import type { Auditor } from '../audit/auditor.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { activateWaitPage } from '../views/activate-page.ts';
import { WRONG_USER_CODE } from './device-flow.ts';

export function userCodeRegulation(deps: { regulator: Pick<Regulator, 'check' | 'fail'>; audit: Auditor }) {
  return async function regulateUserCodes(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'POST' || ctx.path !== AUTH_ROUTES.activate) return next();
    const keys = [`ip:${ctx.ip}`];
    const state = await deps.regulator.check(keys);
    if (state.state !== 'open') {
      ctx.status = 429;
      ctx.set('Retry-After', String(state.retryAfterSeconds));
      ctx.type = 'html';
      ctx.body = activateWaitPage(state.retryAfterSeconds, pageLanguage(ctx));
      return;
    }
    await next();
    if (ctx.state[WRONG_USER_CODE] !== true) return;
    deps.audit.record('device.user_code.failure', { ip: ctx.ip });
    await deps.regulator.fail(keys);
  };
}
