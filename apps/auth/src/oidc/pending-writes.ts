/**
 * Commits what an oidc-provider request left pending in the adapter (a refresh token consumed
 * whose rotated successor was not stored: adapter.ts) once oidc-provider has answered and before
 * the response is sent, whatever the outcome. A failure to commit fails the request (error
 * handler), as the consumption's own write failing did before.
 */
import type { Context, Next } from 'koa';
import type { OidcAdapter } from './adapter.ts';

export function commitPendingWrites(adapter: Pick<OidcAdapter, 'flushPendingWrites'>) {
  return async function pendingWrites(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      await adapter.flushPendingWrites(ctx);
    }
  };
}
