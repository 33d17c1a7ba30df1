/**
 * The request an audit event belongs to. Rules:
 * - the middleware runs the rest of a request inside a scope holding its id (X-Request-Id, as
 *   @gatehouse/http's requestId set it); mount it right after that middleware;
 * - the auditor (audit/auditor.ts) reads the id there and writes it on the audit line and the
 *   stored row, so one id leads from a row of the trail to nginx's and the apps' access lines;
 * - outside a request (authctl, timers) there is no id.
 * Why a scope and not an argument: audit events are emitted by some seventy call sites, several
 * of them services that receive an auditor and no request (admin/user-admin.ts) or oidc-provider's
 * own events; oidc-provider keeps its request context the same way (AsyncLocalStorage).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Next } from 'koa';

const scope = new AsyncLocalStorage<string>();

/** The id of the request being answered, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}

/** Koa middleware: the rest of the request runs with its id in scope. */
export function requestScope(ctx: { state: { requestId?: string } }, next: Next): Promise<void> {
  const id = ctx.state.requestId;
  return id === undefined ? next() : scope.run(id, next);
}
