/**
 * RP-initiated logout's back-channel notices go through Gatehouse's one seam
 * (sessions/backchannel-logout.ts). Rules:
 * - oidc-provider's `backchannelLogout` feature is on for its client metadata
 *   (backchannel_logout_uri, backchannel_logout_session_required) and its discovery members
 *   (backchannel_logout_supported, backchannel_logout_session_supported); its end_session
 *   action calls `client.backchannelLogout(sub, sid)` for each client of the session that
 *   registered a URI, and waits for all;
 * - that call hands the notice to the seam instead of posting it itself: the same signed token,
 *   the same bounded first attempt, retries and audit as every other end of a session; it never
 *   rejects, so a client that is down does not fail the sign-out;
 * - the clients told during a request are kept on its state (`signedOutClients`) for the page
 *   that follows (logout-source.ts).
 */
import { Provider } from 'oidc-provider';
import type { BackchannelLogout, NotifiedClient } from '../sessions/backchannel-logout.ts';

export function routeBackchannelLogout(provider: Provider, backchannel: Pick<BackchannelLogout, 'sessionsEnded'>): void {
  const prototype = provider.Client.prototype as unknown as { backchannelLogout: (this: { clientId: string }, sub: string, sid: string | undefined) => Promise<void> };
  prototype.backchannelLogout = async function backchannelLogout(sub, sid) {
    const notified = await backchannel.sessionsEnded([{ accountId: sub, clients: [{ clientId: this.clientId, sid }] }]);
    const state = (Provider as unknown as { ctx?: { state: { signedOutClients?: NotifiedClient[] } } }).ctx?.state;
    if (state) (state.signedOutClients ??= []).push(...notified);
  };
}
