import Router from '@koa/router';
import { API_ROUTES } from '@gatehouse/contracts';
import type { ApiDefinition } from '../collections/collection-config.ts';
import { methodNotAllowed } from '../errors/api-error.ts';
import type { ApiState } from '../http/state.ts';
import { buildOpenApiDocument } from './openapi-document.ts';

/**
 * `GET /api/openapi.json`. It is public: a client needs it to learn how to get a token.
 * The document is built once: its `servers` entry is the configured public URL, whatever
 * Host or X-Forwarded-Host the request carried.
 */
export function openApiRoute(definition: ApiDefinition, options: { issuer: string; audience: string; serverUrl: string }): Router<ApiState> {
  const router = new Router<ApiState>();
  const body = JSON.stringify(buildOpenApiDocument(definition, options));
  router.get(API_ROUTES.openapi, (ctx) => {
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  });
  router.all(API_ROUTES.openapi, (ctx) => {
    throw methodNotAllowed(ctx.method, ['GET', 'HEAD']);
  });
  return router;
}
