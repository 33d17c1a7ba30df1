import type { Context } from 'koa';
import type { AuthError } from '../errors/auth-error.ts';

/** Answers a browser with HTML and an API client with JSON, same status. */
export function respond(ctx: Context, json: boolean, status: number, page: () => string, body: Record<string, unknown>): void {
  ctx.status = status;
  if (json) {
    ctx.body = body;
  } else {
    ctx.type = 'html';
    ctx.body = page();
  }
}

/** JSON body of an interaction error: RFC 6749 style `error` + `error_description`. */
export function errorBody(error: AuthError): Record<string, unknown> {
  return { error: error.code, error_description: error.message };
}
