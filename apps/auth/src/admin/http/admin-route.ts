/**
 * What an admin API route declares: the one source of the router's checks (admin-router.ts) and
 * of the OpenAPI document (openapi.ts). Rules:
 * - a route names its method, its path below /admin/v1 with `{name}` parameters, the scope it
 *   needs (null: public), a summary and a unique operationId;
 * - every path parameter is described in `params`, and `params` names nothing else (checked when
 *   the route is added);
 * - `query` and `body` are zod schemas: the router validates with them and the document shows
 *   their input form; a body schema that accepts `undefined` makes the body optional;
 * - `responses` lists the successful answers by status, each with its body schema (the shapes of
 *   admin/json/, or the route's own) and headers; `problems` lists the route's own problem
 *   answers by status; the framework's (400, 401, 403 for a route with a scope) are added by the
 *   document, not declared here;
 * - documentation-only keywords (a format, a pattern a store enforces) are zod metadata
 *   (`.meta({ pattern })`): they show in the document and never change what the router accepts.
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import type { AdminScope } from '../../policy/admin-scopes.ts';
import type { Actor } from '../../audit/actor.ts';

type AdminMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface AdminRequest<Q, B> {
  /** Path parameters, decoded. */
  params: Record<string, string>;
  query: Q;
  body: B;
  /** Who calls (undefined only on public routes). */
  actor: Actor;
  ctx: Context;
}

export interface AdminReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface AdminResponseSpec {
  description: string;
  /** The JSON body; none: the answer has no body. */
  body?: z.ZodType;
  /** Response headers: name → description. */
  headers?: Record<string, string>;
}

/** A route as declared, without its handler: what the router checks and the document shows. */
export interface AdminRouteDeclaration {
  method: AdminMethod;
  /** Below /admin/v1, with `{name}` parameters: `/users/{id}`. */
  path: string;
  /** The scope the route needs; null: public (no token). */
  scope: AdminScope | null;
  summary: string;
  operationId: string;
  /** Each path parameter's description. */
  params?: Record<string, string>;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Successful answers by status. */
  responses: Record<number, AdminResponseSpec>;
  /** The route's own problem answers by status → description (codes in backquotes). */
  problems?: Record<number, string>;
}

export interface AdminRouteSpec<Q extends z.ZodType, B extends z.ZodType> extends AdminRouteDeclaration {
  query?: Q;
  body?: B;
  handle(request: AdminRequest<z.output<Q>, z.output<B>>): Promise<AdminReply>;
}

/** The `{name}` parameters of a path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** Refuses a declaration whose `params` do not describe exactly the path's parameters. */
export function checkDeclaration(route: AdminRouteDeclaration): void {
  const declared = Object.keys(route.params ?? {}).sort();
  const inPath = pathParams(route.path).sort();
  if (declared.join() !== inPath.join()) {
    throw new Error(`admin route ${route.method} ${route.path}: params must describe exactly ${inPath.join(', ') || 'nothing'}, not ${declared.join(', ') || 'nothing'}`);
  }
}
