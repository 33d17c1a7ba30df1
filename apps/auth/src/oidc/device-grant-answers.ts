/**
 * The device grant's answers where oidc-provider's differ from RFC 8628 (§3.2, §3.4, §3.5). Rules:
 * - a client not registered for the grant asking for a device code, or presenting one at the
 *   token endpoint, is `unauthorized_client` (RFC 6749 §5.2, as RFC 8628 §3.2 refers to it), 400;
 * - the device authorization response names `interval`: POLL_INTERVAL seconds;
 * - every poll of a pending device code is recorded, by the SHA-256 of the code (never the code
 *   itself); a pending poll less than POLL_INTERVAL after the previous poll of the same code is
 *   answered `slow_down` instead of `authorization_pending` (both 400); the client adds 5 s to
 *   its interval for every later poll (RFC 8628 §3.5), and a client that keeps polling too fast
 *   keeps getting `slow_down`;
 * - a device code this server issued whose lifetime has ended is answered `expired_token`
 *   (400), also once the store has dropped it (it would otherwise be an unknown code,
 *   invalid_grant);
 * - polls and issue times are kept in the regulation store under keys of their own
 *   (`device_poll:`, `device_issued:`), which no regulation rule reads, and are purged with it.
 */
import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { RegulationStore } from '../regulation/regulation-store.ts';
import { DEVICE_CODE_TTL } from './device-flow.ts';

/** Seconds between two polls of one device code (RFC 8628 §3.2 `interval`, its default). */
export const POLL_INTERVAL = 5;

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceGrantAnswersDeps {
  store: Pick<RegulationStore, 'recordFailure' | 'failuresSince'>;
  clock: () => number;
}

interface OidcContext {
  oidc?: { route?: string; params?: Record<string, unknown>; client?: { grantTypeAllowed(type: string): boolean } };
}

const hashOf = (code: string) => createHash('sha256').update(code).digest('base64url');

export function deviceGrantAnswers(deps: DeviceGrantAnswersDeps) {
  const { store, clock } = deps;
  return async function answerAsTheRfcSays(ctx: Context, next: Next): Promise<void> {
    await next();
    const oidc = (ctx as Context & OidcContext).oidc;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!oidc || !body || typeof body !== 'object') return;
    if (oidc.route === 'device_authorization' && ctx.status === 400 && body.error === 'invalid_request' && oidc.client && !oidc.client.grantTypeAllowed(DEVICE_CODE_GRANT)) {
      ctx.body = { error: 'unauthorized_client', error_description: 'this client is not registered for the device authorization grant' };
      return;
    }
    if (oidc.route === 'device_authorization' && ctx.status === 200 && typeof body.device_code === 'string') {
      body.interval = POLL_INTERVAL;
      await store.recordFailure(`device_issued:${hashOf(body.device_code)}`, clock());
      return;
    }
    if (oidc.route !== 'token' || oidc.params?.grant_type !== DEVICE_CODE_GRANT) return;
    if (ctx.status === 400 && body.error === 'invalid_request' && oidc.client && !oidc.client.grantTypeAllowed(DEVICE_CODE_GRANT)) {
      ctx.body = { error: 'unauthorized_client', error_description: 'this client is not registered for the device authorization grant' };
      return;
    }
    if (typeof oidc.params.device_code !== 'string') return;
    const hash = hashOf(oidc.params.device_code);
    const now = clock();
    if (body.error === 'authorization_pending') {
      const recent = await store.failuresSince(`device_poll:${hash}`, now - POLL_INTERVAL * 1000 + 1);
      await store.recordFailure(`device_poll:${hash}`, now);
      if (recent.length > 0) ctx.body = { error: 'slow_down', error_description: `poll at most every ${POLL_INTERVAL} seconds, and add 5 seconds to the interval after each slow_down` };
      return;
    }
    if (body.error === 'invalid_grant') {
      const issued = await store.failuresSince(`device_issued:${hash}`, now - 2 * DEVICE_CODE_TTL * 1000);
      const first = issued[0];
      if (first !== undefined && first + DEVICE_CODE_TTL * 1000 <= now) {
        ctx.body = { error: 'expired_token', error_description: 'the device code has expired: start the device authorization again' };
      }
    }
  };
}
