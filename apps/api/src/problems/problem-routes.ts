/**
 * `GET /problems/<code>`: the documentation each problem document's `type` points at, and
 * `GET /problems`, the list of codes. Rules:
 * - public (no token), cacheable, the same for every caller;
 * - HTML by default, JSON when the client ranks application/json above text/html, 406 if neither;
 * - a code outside the catalog (problem-catalog.ts) is a 404 `not_found` problem; the unknown
 *   code is not echoed;
 * - every absolute URL in the answers starts with the configured public URL (API_PUBLIC_URL);
 * - other methods are 405 with `Allow: GET, HEAD`.
 */
import Router from '@koa/router';
import { API_ROUTES } from '@gatehouse/contracts';
import { ERROR_CODES, methodNotAllowed, notAcceptable, notFound } from '../errors/api-error.ts';
import { isKnownCode, PROBLEM_CATALOG, problemTypeUri } from '../errors/problem-catalog.ts';
import type { ApiContext, ApiState } from '../http/state.ts';
import { problemDescriptionToHtml, problemIndexToHtml } from '../representations/html.ts';
import { BASE_TYPES, negotiateDocumentation } from '../representations/negotiate.ts';

const CACHE = 'public, max-age=3600';

function representation(ctx: ApiContext): 'html' | 'json' {
  ctx.set('Vary', 'Accept');
  const chosen = negotiateDocumentation(ctx.get('Accept') || undefined);
  if (!chosen) throw notAcceptable([BASE_TYPES.html, BASE_TYPES.json]);
  return chosen;
}

export function problemRoutes(options: { publicUrl: string }): Router<ApiState> {
  const router = new Router<ApiState>();
  const index = ERROR_CODES.map((code) => ({ code, status: PROBLEM_CATALOG[code].status, title: PROBLEM_CATALOG[code].title }));

  router.get(API_ROUTES.problems, (ctx) => {
    const chosen = representation(ctx);
    ctx.set('Cache-Control', CACHE);
    if (chosen === 'json') {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ problems: index.map((e) => ({ ...e, type: problemTypeUri(options.publicUrl, e.code) })) });
    } else {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = problemIndexToHtml(index.map((e) => ({ ...e, href: `${API_ROUTES.problems}/${e.code}` })));
    }
  });
  router.get(`${API_ROUTES.problems}/:code`, (ctx) => {
    const code = ctx.params.code ?? '';
    if (!isKnownCode(code)) throw notFound('no problem type of this API has that code; GET /problems lists them');
    const chosen = representation(ctx);
    const description = PROBLEM_CATALOG[code];
    ctx.set('Cache-Control', CACHE);
    if (chosen === 'json') {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ type: problemTypeUri(options.publicUrl, code), code, ...description });
    } else {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = problemDescriptionToHtml(code, description);
    }
  });
  for (const path of [API_ROUTES.problems, `${API_ROUTES.problems}/:code`]) {
    router.all(path, (ctx) => {
      throw methodNotAllowed(ctx.method, ['GET', 'HEAD']);
    });
  }
  return router;
}
