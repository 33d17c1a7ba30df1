/**
 * POST /items and POST /items/:id/delete — the landing page's add and delete forms.
 * Rules:
 * - only with a signed-in session (else 303 to `/`, which starts a login) and the session's CSRF token;
 * - the item is `{ id, <item field>: value }`; a malformed id or empty value is refused here
 *   with a message, without calling the API;
 * - the API's answer becomes a message on the landing page (303 back to `/`), including its errors
 *   (e.g. 403 insufficient_scope, 409 duplicate_id);
 * - a refused refresh ends the session and starts a new login.
 */
import type { Context } from 'koa';
import { RefreshRefused } from '../oidc/relying-party.ts';
import { checkCsrf } from '../sessions/csrf.ts';
import { readSession, type Flash } from '../sessions/session-data.ts';
import { problemText } from '../views/landing-page.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import type { RouteDeps } from './deps.ts';
import { loginAgain } from './session-guard.ts';

const ID = /^[1-9][0-9]{0,15}$/;

function backToLanding(ctx: Context, flash: Flash): void {
  ctx.session!.flash = flash;
  ctx.status = 303;
  ctx.redirect('/');
}

export function createItemActions(deps: RouteDeps) {
  const { config } = deps;
  const guard = (ctx: Context): boolean => {
    const session = readSession(ctx.session);
    if (!session) {
      ctx.status = 303;
      ctx.redirect('/');
      return false;
    }
    checkCsrf(session.csrf, (ctx.request.body as Record<string, unknown> | undefined)?._csrf);
    return true;
  };

  return {
    async add(ctx: Context): Promise<void> {
      if (!guard(ctx)) return;
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      const id = typeof body.id === 'string' ? body.id.trim() : '';
      const value = typeof body.value === 'string' ? body.value.trim() : '';
      if (!ID.test(id) || !Number.isSafeInteger(Number(id))) return backToLanding(ctx, { kind: 'error', text: pageLanguage(ctx).t('landing.badId') });
      if (!value) return backToLanding(ctx, { kind: 'error', text: pageLanguage(ctx).t('landing.valueRequired', { field: config.itemField }) });
      try {
        const outcome = await deps.api.create(ctx, { id: Number(id), [config.itemField]: value });
        backToLanding(ctx, outcome.ok ? { kind: 'info', text: pageLanguage(ctx).t('landing.added', { collection: config.collection, id }) } : { kind: 'error', text: problemText(outcome.problem, pageLanguage(ctx)) });
      } catch (error) {
        if (error instanceof RefreshRefused) return loginAgain(ctx, deps);
        throw error;
      }
    },
    async remove(ctx: Context): Promise<void> {
      if (!guard(ctx)) return;
      const id = String(ctx.params?.id ?? '');
      if (!ID.test(id)) return backToLanding(ctx, { kind: 'error', text: pageLanguage(ctx).t('landing.badId') });
      try {
        const outcome = await deps.api.remove(ctx, Number(id));
        backToLanding(ctx, outcome.ok ? { kind: 'info', text: pageLanguage(ctx).t('landing.deleted', { collection: config.collection, id }) } : { kind: 'error', text: problemText(outcome.problem, pageLanguage(ctx)) });
      } catch (error) {
        if (error instanceof RefreshRefused) return loginAgain(ctx, deps);
        throw error;
      }
    },
  };
}
