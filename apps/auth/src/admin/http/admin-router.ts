/**
 * The admin API's router: every request under /admin/v1 is answered here, never by the rest of
 * the server. Rules:
 * - routes are declared as admin-route.ts says (path `/users/{id}`, method, scope, zod schemas of
 *   the query and the JSON body, responses); the declarations are readable (`routes`): the
 *   OpenAPI document (openapi.ts) is built from them;
 * - order of checks: path (404 `not_found`) → method (405 `method_not_allowed` with Allow) →
 *   bearer token (401) → scope (403) → query and body (400 `validation_failed` with `errors`,
 *   415, 413, 400 `malformed_body`) → the handler;
 * - a query parameter given twice is refused; unknown body members are refused (strict objects);
 * - control characters (NUL included) never reach a handler or the database: a path parameter
 *   holding one names nothing (404), a query value holding one is a validation failure;
 * - bodies are JSON only (`application/json` or `application/*+json`), at most 64 KiB, read by the
 *   shared reader (`@gatehouse/http` readRequestBody) and answered as problems here; a route
 *   whose body schema accepts `undefined` (optional body) may also be called without a body;
 * - every answer has `Cache-Control: no-store`; errors are problem documents (problem.ts); an
 *   unreachable database is 503 `temporarily_unavailable` with Retry-After; anything unexpected
 *   is 500 `server_error` with the request id, the stack only in the log.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { isDatabaseUnavailable } from '@gatehouse/db';
import { BodyError, readRequestBody } from '@gatehouse/http';
import type { Logger } from '../../logging/logger.ts';
import type { Actor } from '../../audit/actor.ts';
import { checkDeclaration, type AdminReply, type AdminRequest, type AdminRouteDeclaration, type AdminRouteSpec } from './admin-route.ts';
import type { BearerCheck } from './bearer.ts';
import { AdminProblem, problemDocument, validationFailed, type FieldError } from './problem.ts';

export const ADMIN_BASE = '/admin/v1';
const BODY_LIMIT = 64 * 1024;


interface Route extends AdminRouteDeclaration {
  segments: string[];
  handle(request: AdminRequest<unknown, unknown>): Promise<AdminReply>;
}

export interface AdminRouter {
  add<Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(spec: AdminRouteSpec<Q, B>): void;
  /** The declared routes, without their handlers, in declaration order (the OpenAPI document's source). */
  readonly routes: readonly AdminRouteDeclaration[];
  /** Koa middleware answering every request under /admin/v1 and passing the others on. */
  middleware(): (ctx: Context, next: () => Promise<unknown>) => Promise<void>;
}

export interface AdminRouterDeps {
  bearer: BearerCheck;
  logger: Logger;
}

/** zod issues as field errors (`groups.1`; a query's parameter name). */
function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String);
    // Unknown members are reported on the object: name them instead.
    if (issue.code === 'unrecognized_keys') return { field: [...path, ...issue.keys].join('.'), message: 'is not a known field' };
    return { field: path.join('.') || '(body)', message: issue.message };
  });
}

const CONTROL = /\p{Cc}/u;

function matchPath(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.startsWith('{')) {
      if (part === '' || CONTROL.test(part)) return undefined;
      params[segment.slice(1, -1)] = part;
    } else if (segment !== part) return undefined;
  }
  return params;
}

function readQuery(ctx: Context): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw validationFailed([{ field: name, message: 'is given more than once' }]);
    if (value !== undefined && (CONTROL.test(value) || CONTROL.test(name))) throw validationFailed([{ field: name, message: 'must not contain control characters' }]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Whether the request carries a body (RFC 9110 §8.6: a length above 0, or a transfer coding). */
function hasBody(ctx: Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

/** The body as JSON, under the shared reader's rules; its refusals as the admin API's problems. */
async function readJson(ctx: Context): Promise<unknown> {
  try {
    return (await readRequestBody(ctx.req, { limit: BODY_LIMIT, accept: ['application/json', 'application/*+json'] })).value;
  } catch (thrown) {
    if (!(thrown instanceof BodyError)) throw thrown;
    switch (thrown.code) {
      case 'unsupported_media_type':
        throw new AdminProblem(415, 'unsupported_media_type', 'Send the body as application/json.');
      case 'payload_too_large':
        throw new AdminProblem(413, 'payload_too_large', `The body is larger than ${BODY_LIMIT} bytes.`);
      case 'aborted':
        throw new AdminProblem(400, 'malformed_body', 'The body ended before it was complete.');
      case 'empty_body':
      case 'malformed_json':
      case 'not_an_object':
        throw new AdminProblem(400, 'malformed_body', 'The body is not valid JSON.');
    }
  }
}

export function createAdminRouter(deps: AdminRouterDeps): AdminRouter {
  const table: Route[] = [];

  async function dispatch(ctx: Context, relative: string): Promise<void> {
    let parts: string[];
    try {
      parts = relative.split('/').slice(1).map((p) => decodeURIComponent(p));
    } catch {
      throw new AdminProblem(404, 'not_found', 'There is nothing at this address.');
    }
    const matching = table.map((route) => ({ route, params: matchPath(route.segments, parts) })).filter((m) => m.params !== undefined);
    if (matching.length === 0) throw new AdminProblem(404, 'not_found', 'There is nothing at this address.');
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const found = matching.find((m) => m.route.method === method);
    if (!found) {
      const allow = [...new Set(matching.map((m) => m.route.method))].join(', ');
      throw new AdminProblem(405, 'method_not_allowed', `${ctx.method} is not allowed here; use ${allow}.`, { headers: { Allow: allow } });
    }
    const { route } = found;
    let actor: Actor | undefined;
    if (route.scope !== null) {
      const caller = await deps.bearer.authenticate(ctx);
      deps.bearer.requireScope(caller, route.scope);
      actor = caller.actor;
    }
    let query: unknown = undefined;
    const rawQuery = readQuery(ctx);
    if (route.query) {
      const parsed = route.query.safeParse(rawQuery);
      if (!parsed.success) throw validationFailed(fieldErrors(parsed.error));
      query = parsed.data;
    } else if (Object.keys(rawQuery).length > 0) {
      throw validationFailed(Object.keys(rawQuery).map((field) => ({ field, message: 'is not a known parameter' })));
    }
    let body: unknown = undefined;
    if (route.body) {
      // A route whose body schema takes `undefined` (an optional body) may be called without one.
      const absent = !hasBody(ctx) && route.body.safeParse(undefined).success;
      const parsed = route.body.safeParse(absent ? undefined : await readJson(ctx));
      if (!parsed.success) throw validationFailed(fieldErrors(parsed.error));
      body = parsed.data;
    }
    const reply = await route.handle({ params: found.params!, query, body, actor: actor!, ctx });
    ctx.status = reply.status;
    for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
    if (reply.body !== undefined) ctx.body = reply.body;
  }

  const toProblem = (thrown: unknown, ctx: Context): AdminProblem => {
    if (thrown instanceof AdminProblem) return thrown;
    const requestId = String(ctx.state.requestId ?? '');
    if (isDatabaseUnavailable(thrown)) {
      deps.logger.warn({ event: 'database.unavailable', request_id: requestId }, 'database unavailable');
      return new AdminProblem(503, 'temporarily_unavailable', 'The service cannot reach its database right now. Try again in a moment.', {
        headers: { 'Retry-After': '5' },
      });
    }
    deps.logger.error({ event: 'http.unhandled_error', err: thrown, request_id: requestId }, 'admin API: unhandled error');
    return new AdminProblem(500, 'server_error', `Something went wrong on our side; quote request id ${requestId}.`);
  };

  return {
    add(spec) {
      checkDeclaration(spec);
      table.push({ ...spec, segments: spec.path.split('/').slice(1), handle: spec.handle as Route['handle'] });
    },
    get routes() {
      return table.map(({ segments: _segments, handle: _handle, ...declaration }) => declaration);
    },
    middleware() {
      return async function adminApi(ctx, next) {
        if (ctx.path !== ADMIN_BASE && !ctx.path.startsWith(`${ADMIN_BASE}/`)) {
          await next();
          return;
        }
        try {
          await dispatch(ctx, ctx.path.slice(ADMIN_BASE.length));
        } catch (thrown) {
          const problem = toProblem(thrown, ctx);
          ctx.status = problem.status;
          for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
          ctx.body = problemDocument(problem, ctx.path);
          ctx.type = 'application/problem+json';
        }
        ctx.set('Cache-Control', 'no-store');
      };
    },
  };
}
