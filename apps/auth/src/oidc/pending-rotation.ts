/**
 * The refresh-token rotation a request has under way (adapter.ts). Rules:
 * - kept per request object (oidc-provider's request, or the Koa context a middleware outside its
 *   endpoints names), in a WeakMap: no other request sees it, and nothing outlives the request;
 * - a request holds at most one consumption not committed yet and one commit waiting for the
 *   disk; each is taken once (take clears it);
 * - outside a request nothing is held: the adapter commits a consumption at once.
 */

/** A RefreshToken consumed in this request, not committed yet. */
export interface PendingConsumption {
  model: string;
  id: string;
  /** When it was consumed (epoch ms). */
  now: number;
}

interface Held {
  consumption?: PendingConsumption;
  /** A rotation committed in this request whose log is not synced yet: the response waits for it. */
  durable?: Promise<void>;
}

export interface PendingRotation {
  /** True while a request is being served (a consumption may then wait for its successor). */
  active(): boolean;
  /** Holds the consumption of the request being served until its successor is stored. */
  holdConsumption(consumption: PendingConsumption): void;
  /** The consumption held by the request being served (or `request`), cleared. */
  takeConsumption(request?: object): PendingConsumption | undefined;
  /** Holds the wait for the disk of the rotation the request being served committed. */
  holdDurable(durable: Promise<void>): void;
  /** That wait, for the request being served (or `request`), cleared. */
  takeDurable(request?: object): Promise<void> | undefined;
}

/** `currentRequest` names the request being served (an object unique to it), or undefined. */
export function createPendingRotation(currentRequest: () => object | undefined): PendingRotation {
  const byRequest = new WeakMap<object, Held>();
  const held = (request: object | undefined, create: boolean): Held | undefined => {
    if (!request) return undefined;
    let entry = byRequest.get(request);
    if (!entry && create) byRequest.set(request, (entry = {}));
    return entry;
  };
  return {
    active: () => currentRequest() !== undefined,
    holdConsumption(consumption) {
      const entry = held(currentRequest(), true);
      if (entry) entry.consumption = consumption;
    },
    takeConsumption(request = currentRequest()) {
      const entry = held(request, false);
      const consumption = entry?.consumption;
      if (entry) delete entry.consumption;
      return consumption;
    },
    holdDurable(durable) {
      const entry = held(currentRequest(), true);
      if (entry) entry.durable = durable;
    },
    takeDurable(request = currentRequest()) {
      const entry = held(request, false);
      const durable = entry?.durable;
      if (entry) delete entry.durable;
      return durable;
    },
  };
}
