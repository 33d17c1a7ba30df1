import Router from '@koa/router';
import { API_ROUTES } from '@gatehouse/contracts';
import type { ApiDefinition } from '../collections/collection-config.ts';
import { methodNotAllowed } from '../errors/api-error.ts';
import { baseUrl } from '../http/base-url.ts';
import type { ApiState } from '../http/state.ts';
import { buildOpenApiDocument } from './openapi-document.ts';

/**
 * `GET /api/openapi.json`. It is public: a client needs it to learn how to get a token.
 * The document is built once per origin (TRUST_PROXY can make the origin vary).
 */
export function openApiRoute(definition: ApiDefinition, options: { issuer: string; audience: string }): Router<ApiState> {
  const router = new Router<ApiState>();
  const built = new Map<string, string>();
  router.get(API_ROUTES.openapi, (ctx) => {
    const origin = baseUrl(ctx);
    let body = built.get(origin);
    if (body === undefined) {
      body = JSON.stringify(buildOpenApiDocument(definition, { ...options, serverUrl: origin }));
      if (built.size < 16) built.set(origin, body);
    }
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  });
  router.all(API_ROUTES.openapi, (ctx) => {
    throw methodNotAllowed(ctx.method, ['GET', 'HEAD']);
  });
  return router;
}
