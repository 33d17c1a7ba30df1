/**
 * The admin console's router: the sections (console/sections.ts) register their pages and
 * forms through `ConsoleRoutes`, which runs the access checks and the CSRF check before any
 * handler and answers refusals in the console. Rules:
 * - `page(path, handler)` (GET): console-access.ts's checks (login, 403, stale sign-in sent
 *   through the login again); the handler gets the admin and `render`, which frames its body
 *   (views/console-layout.ts) and shows the flash message left by the last form; a page marked
 *   `write` (a form, a confirmation) is 403 `read_only` to an auditor;
 * - `action(path, handler)` (POST), in order: same-origin (http/same-origin.ts, 403) → signed in
 *   and fresh (401 page) → admin or auditor (403 page) → not read-only (403 `read_only`) → a
 *   form body (http/read-body.ts; JSON is 415) → the CSRF token (`csrf` field, 403
 *   `csrf_refused`) → the handler, which acts through the service layer with `admin.actor`;
 * - a refusal of the service layer or of the handler (console-refusal.ts) is answered where the
 *   admin is looking: by default the console's error page with its status and a link back
 *   (the action's page, its path without the last segment); a handler may catch it itself
 *   and show it in its form instead;
 * - every answer is `no-store` (the shared security headers) and HTML, in the viewer's language
 *   (i18n/page-language.ts: the language switch's cookie, else Accept-Language); the page
 *   answering a post returns its language switch to the action's page (`back`).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { readBody } from '../http/read-body.ts';
import { requireSameOrigin } from '../http/same-origin.ts';
import { recordSessionUse, type SessionUseDeps } from '../account/session-use.ts';
import { consoleLayout, type ConsoleNavItem, type ConsoleNavKey, type ConsoleViewer } from '../views/console-layout.ts';
import { confirmPage, consoleErrorPage, notAnAdminPage, signInAgainPage, type ConfirmModel } from '../views/console-pages.ts';
import { ADMIN_GROUP, READ_ONLY_ADMIN_GROUP } from '../policy/admin-scopes.ts';
import { consoleAccess, type ConsoleAccessDeps, type ConsoleAdmin } from './console-access.ts';
import { csrfValid, CSRF_FIELD } from './console-csrf.ts';
import { setFlash, takeFlash, type Flash } from './console-flash.ts';
import { ConsoleError, consoleRefusal } from './console-refusal.ts';
import { consoleCallback, consoleSignInUrl } from './console-sign-in.ts';
import { CONSOLE_CALLBACK_PATH } from './console-paths.ts';
import type { SafeHtml } from '@gatehouse/html';
import { pageLanguage, type PageLanguage } from '../i18n/page-language.ts';

export interface ConsolePageOptions {
  title: string;
  /** The nav key of the section the page belongs to; the section's own by default. */
  current?: ConsoleNavKey;
  body: SafeHtml;
  status?: number;
  scripts?: readonly string[];
}

/** What a console handler gets besides the Koa context. */
export interface ConsoleRequest {
  ctx: Context;
  admin: ConsoleAdmin;
  /** The viewer the views take (role, write rights, CSRF token, language). */
  viewer: ConsoleViewer;
  /** The language of the answer (the viewer's). */
  language: PageLanguage;
  /** Answers with a console page (HTML, status 200 unless given). */
  render(page: ConsolePageOptions): void;
  /** Answers with a confirmation page (views/console-pages.ts). */
  confirm(title: string, model: ConfirmModel): void;
  /** 303 to `path` with a message the next page shows at its top (console-flash.ts). */
  redirect(path: string, flash?: Flash): void;
  /** The route's path parameters. */
  params: Record<string, string>;
}

export interface ConsoleActionRequest extends ConsoleRequest {
  /** The posted form's fields (the CSRF token already checked). */
  form: Record<string, string>;
  /** A field of the form, trimmed; missing or empty is 400 `invalid_input` naming `label`. */
  field(name: string, label: string, max?: number): string;
  /** A field of the form, trimmed, or '' when absent. */
  optional(name: string, max?: number): string;
}

export interface ConsoleRoutes {
  /** A page; with `write`, a step of a change (a form, a confirmation), refused 403 `read_only` to auditors. */
  page(path: string, handler: (request: ConsoleRequest) => Promise<void>, options?: { write?: boolean }): void;
  action(path: string, handler: (request: ConsoleActionRequest) => Promise<void>, options?: { back?: (params: Record<string, string>) => string }): void;
}

export type ConsoleRouterDeps = ConsoleAccessDeps & SessionUseDeps & { config: ConsoleAccessDeps['config'] & { issuer: string } };

/** A console section: its navigation entry and its routes (console/sections.ts lists them). */
export interface ConsoleSection<D> {
  nav: ConsoleNavItem;
  register(routes: ConsoleRoutes, deps: D): void;
}

const readOnly = (language: PageLanguage) => new ConsoleError(403, 'read_only', language.t('console.error.readOnly'));

const parentPath = (path: string): string => path.slice(0, Math.max(path.lastIndexOf('/'), '/admin'.length)) || '/admin';

export interface ConsoleRouter {
  router: Router;
  /** Every path registered (`/admin/users/:id`), for the request metrics' route names. */
  paths: readonly string[];
}

export function createConsoleRouter<D>(deps: ConsoleRouterDeps, sections: readonly ConsoleSection<D>[], sectionDeps: D): ConsoleRouter {
  const router = new Router();
  const paths: string[] = [CONSOLE_CALLBACK_PATH];
  const nav = sections.map((section) => section.nav);
  const keys = deps.config.cookieKeys;
  router.get(CONSOLE_CALLBACK_PATH, consoleCallback);

  const signInUrl = (ctx: Context, fresh: boolean) => consoleSignInUrl(deps.config.issuer, { returnTo: ctx.method === 'GET' ? ctx.url : '/admin', maxAge: deps.config.adminConsole.maxAge, fresh });

  const html = (ctx: Context, status: number, body: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = body;
  };

  /** Runs the access checks; answers and returns undefined when they refuse. */
  async function admit(ctx: Context, language: PageLanguage, write: boolean): Promise<ConsoleAdmin | undefined> {
    const access = await consoleAccess(ctx, deps);
    if (access.outcome === 'not_admin') {
      html(ctx, 403, notAnAdminPage({ language, username: access.account.username, adminGroup: ADMIN_GROUP, readOnlyGroup: READ_ONLY_ADMIN_GROUP }));
      return undefined;
    }
    if (access.outcome !== 'granted') {
      const stale = access.outcome === 'stale';
      if (!write) ctx.redirect(signInUrl(ctx, stale));
      else html(ctx, 401, signInAgainPage({ language, languageReturn: parentPath(ctx.path), signInUrl: signInUrl(ctx, stale), stale }));
      return undefined;
    }
    return access.admin;
  }

  const viewerOf = (admin: ConsoleAdmin, language: PageLanguage): ConsoleViewer => ({ username: admin.account.username, role: admin.role, canWrite: admin.canWrite, csrf: admin.csrf, language });

  function request(ctx: Context, admin: ConsoleAdmin, language: PageLanguage, current: ConsoleNavKey, params: Record<string, string>, languageReturn?: string): ConsoleRequest {
    const viewer = viewerOf(admin, language);
    const frame = () => {
      const flash = takeFlash(ctx, keys);
      return { nav, viewer, ...(flash ? { flash } : {}), ...(languageReturn ? { languageReturn } : {}) };
    };
    return {
      ctx,
      admin,
      viewer,
      language,
      params,
      render(page) {
        html(ctx, page.status ?? 200, consoleLayout({ ...frame(), title: page.title, current: page.current ?? current, body: page.body, ...(page.scripts ? { scripts: page.scripts } : {}) }));
      },
      confirm(title, model) {
        html(ctx, 200, confirmPage({ ...frame(), title, current }, model));
      },
      redirect(path, flash) {
        if (flash) setFlash(ctx, keys, flash);
        ctx.status = 303;
        ctx.redirect(path);
      },
    };
  }

  function refused(ctx: Context, admin: ConsoleAdmin, language: PageLanguage, current: ConsoleNavKey, error: unknown, back: string): void {
    const refusal = consoleRefusal(error, language);
    if (!refusal) throw error;
    for (const [name, value] of Object.entries(refusal.headers ?? {})) ctx.set(name, value);
    const title = language.t(refusal.status === 404 ? 'console.refused.notFound' : refusal.status === 403 ? 'console.refused.notAllowed' : 'console.refused.notDone');
    const languageReturn = ctx.method === 'GET' ? undefined : back;
    html(ctx, refusal.status, consoleErrorPage({ nav, viewer: viewerOf(admin, language), title, current, ...(languageReturn ? { languageReturn } : {}) }, { title, message: refusal.message, code: refusal.code, back: { href: back, label: language.t('console.goBack') } }));
  }

  const routes = (section: ConsoleSection<D>): ConsoleRoutes => ({
    page(path, handler, options = {}) {
      paths.push(path);
      router.get(path, async (ctx) => {
        const language = pageLanguage(ctx);
        const admin = await admit(ctx, language, false);
        if (!admin) return;
        await recordSessionUse(ctx, deps, { uid: admin.sessionUid, accountId: admin.account.id });
        try {
          if (options.write && !admin.canWrite) throw readOnly(language);
          await handler(request(ctx, admin, language, section.nav.key, ctx.params));
        } catch (error) {
          refused(ctx, admin, language, section.nav.key, error, path === '/admin' ? '/admin' : parentPath(ctx.path));
        }
      });
    },
    action(path, handler, options = {}) {
      paths.push(path);
      router.post(path, async (ctx) => {
        requireSameOrigin(ctx, deps);
        const language = pageLanguage(ctx);
        const admin = await admit(ctx, language, true);
        if (!admin) return;
        const back = options.back?.(ctx.params) ?? parentPath(ctx.path);
        const { t } = language;
        try {
          if (!admin.canWrite) throw readOnly(language);
          const body = await readBody(ctx);
          if (body.json) throw new ConsoleError(415, 'unsupported_media_type', t('console.error.formsOnly'));
          if (!csrfValid(keys, admin.sessionUid, body.fields[CSRF_FIELD])) throw new ConsoleError(403, 'csrf_refused', t('console.error.csrfRefused'));
          const form = body.fields;
          const base = request(ctx, admin, language, section.nav.key, ctx.params, back.split('#')[0]);
          await handler({
            ...base,
            form,
            field(name, label, max = 256) {
              const value = (form[name] ?? '').trim();
              if (!value) throw new ConsoleError(400, 'invalid_input', t('console.error.required', { label }));
              if (value.length > max) throw new ConsoleError(400, 'invalid_input', t('console.error.tooLong', { label, max }));
              return value;
            },
            optional(name, max = 1024) {
              const value = (form[name] ?? '').trim();
              if (value.length > max) throw new ConsoleError(400, 'invalid_input', t('console.error.tooLong', { label: name, max }));
              return value;
            },
          });
        } catch (error) {
          refused(ctx, admin, language, section.nav.key, error, back);
        }
      });
    },
  });

  for (const section of sections) section.register(routes(section), sectionDeps);
  return { router, paths };
}
