/**
 * Back-channel logout (OpenID Connect Back-Channel Logout 1.0): the one seam through which every
 * end of an SSO session tells the session's clients. Rules:
 * - every way a session ends goes through sessionsEnded(): RP-initiated logout (oidc-provider's
 *   end_session, wired in oidc/logout-token.ts), "sign out other sessions", an operator's sign-out,
 *   disable or removal and every other lockdown (accounts/end-account-access.ts), and expiry (the
 *   purge, app.ts);
 * - each client of an ended session that registered a backchannel_logout_uri gets a logout token
 *   signed with the provider's keys (`sign`, oidc/logout-token.ts), a fresh one (new `jti`, `iat`)
 *   for every attempt, posted as the form field `logout_token`; 200 or 204 is delivered, any other
 *   status, a network error or no answer within `timeoutMs` is a failed attempt;
 * - first attempts run at once and in parallel; sessionsEnded() resolves when each has been
 *   answered or has timed out, so a sign-out waits at most about `timeoutMs` however many clients
 *   are down, and never fails because of a client;
 * - a failed delivery is tried again once each delay of `retryDelaysMs` has passed (by the
 *   injected clock, when `runDue` runs: the app's maintenance), then abandoned; at most
 *   `maxPending` deliveries wait, one beyond that is abandoned at once; the queue lives in memory,
 *   so a restart loses it: at shutdown dropPending() abandons every delivery still waiting, each
 *   audited `session.backchannel_logout.dropped` (client, attempts made, when the next was due)
 *   and counted abandoned (the sessions themselves are already ended);
 * - every failed attempt is audited `session.backchannel_logout.failed` (client, attempt, reason,
 *   whether another attempt follows), and every attempt's outcome is counted (`count`).
 */
import type { Auditor } from '../audit/auditor.ts';
import type { EndedSession } from './user-sessions.ts';

/** Why an attempt failed: no answer in time, no connection, or an answer other than 200/204. */
export type DeliveryFailure = 'timeout' | 'network' | 'status';

/** An attempt's outcome, as counted: delivered; failed, to be retried; or abandoned (last attempt failed, or the queue was full). */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'abandoned';

/** A signed logout token for one client and where to post it; undefined when the client registered no URI (or is gone). */
export type LogoutTokenSigner = (clientId: string, sub: string, sid: string | undefined) => Promise<{ uri: string; token: string; clientName: string } | undefined>;

/** Per client told: its name and whether the first attempt was delivered. */
export interface NotifiedClient {
  clientId: string;
  clientName: string;
  delivered: boolean;
}

export interface BackchannelLogout {
  /** Tells the clients of these sessions; resolves after every first attempt, never rejects. */
  sessionsEnded(sessions: readonly EndedSession[]): Promise<NotifiedClient[]>;
  /** Attempts the retries that are due (by the clock). */
  runDue(): Promise<void>;
  /** Deliveries waiting for a retry (tests, metrics). */
  pending(): number;
  /** Abandons every waiting delivery (shutdown), auditing and counting each; how many there were. */
  dropPending(): number;
}

export interface BackchannelLogoutDeps {
  sign: LogoutTokenSigner;
  fetch: typeof globalThis.fetch;
  clock: () => number;
  audit: Pick<Auditor, 'record'>;
  count: (outcome: DeliveryOutcome) => void;
  logger: { warn(fields: object, message: string): void };
  /** The longest wait for one answer, ms. */
  timeoutMs?: number;
  /** The delay before each retry, ms; its length is the number of retries. */
  retryDelaysMs?: readonly number[];
  maxPending?: number;
}

export const BACKCHANNEL_TIMEOUT_MS = 2_000;
export const BACKCHANNEL_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000];
const MAX_PENDING = 10_000;

interface Delivery {
  clientId: string;
  sub: string;
  sid: string | undefined;
  /** Attempts made so far. */
  attempts: number;
  dueAt: number;
}

export function createBackchannelLogout(deps: BackchannelLogoutDeps): BackchannelLogout {
  const timeoutMs = deps.timeoutMs ?? BACKCHANNEL_TIMEOUT_MS;
  const delays = deps.retryDelaysMs ?? BACKCHANNEL_RETRY_DELAYS_MS;
  const maxPending = deps.maxPending ?? MAX_PENDING;
  let queue: Delivery[] = [];

  /** One attempt: undefined when the client has no URI, else whether it was delivered. */
  async function attempt(delivery: Delivery): Promise<{ clientName: string; delivered: boolean } | undefined> {
    delivery.attempts += 1;
    let failure: DeliveryFailure;
    let status: number | undefined;
    let clientName = delivery.clientId;
    try {
      const signed = await deps.sign(delivery.clientId, delivery.sub, delivery.sid);
      if (!signed) return undefined;
      clientName = signed.clientName;
      const response = await deps.fetch(signed.uri, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: signed.token }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 200 || response.status === 204) {
        deps.count('delivered');
        return { clientName, delivered: true };
      }
      failure = 'status';
      status = response.status;
    } catch (error) {
      failure = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? 'timeout' : 'network';
      if (failure === 'network' && !(error instanceof TypeError)) deps.logger.warn({ event: 'session.backchannel_logout.error', err: error, client_id: delivery.clientId }, 'back-channel logout could not be attempted');
    }
    const delay = delays[delivery.attempts - 1];
    const retried = delay !== undefined && queue.length < maxPending;
    deps.audit.record('session.backchannel_logout.failed', {
      client_id: delivery.clientId,
      attempt: delivery.attempts,
      reason: failure,
      ...(status !== undefined ? { status } : {}),
      retried,
    });
    deps.count(retried ? 'retrying' : 'abandoned');
    if (retried) queue.push({ ...delivery, dueAt: deps.clock() + delay });
    return { clientName, delivered: false };
  }

  return {
    async sessionsEnded(sessions) {
      const deliveries = sessions.flatMap((session) =>
        session.clients.map((client): Delivery => ({ clientId: client.clientId, sub: session.accountId, sid: client.sid, attempts: 0, dueAt: 0 })),
      );
      const results = await Promise.all(deliveries.map((delivery) => attempt(delivery)));
      return results.flatMap((result, i) => (result ? [{ clientId: deliveries[i]!.clientId, clientName: result.clientName, delivered: result.delivered }] : []));
    },

    async runDue() {
      const now = deps.clock();
      const due = queue.filter((delivery) => delivery.dueAt <= now);
      if (due.length === 0) return;
      queue = queue.filter((delivery) => delivery.dueAt > now);
      await Promise.all(due.map((delivery) => attempt(delivery)));
    },

    pending: () => queue.length,

    dropPending() {
      const dropped = queue;
      queue = [];
      for (const delivery of dropped) {
        deps.audit.record('session.backchannel_logout.dropped', { client_id: delivery.clientId, attempts: delivery.attempts, due_at: new Date(delivery.dueAt).toISOString() });
        deps.count('abandoned');
      }
      return dropped.length;
    },
  };
}
