/**
 * In-process wake-ups for the authenticator's event streams: when a push of an account is created
 * or decided, its open streams re-read the store at once. Other instances' changes are picked up by
 * the streams' periodic re-read, so the hub is an accelerator, never the source of truth.
 */
import { EventEmitter } from 'node:events';

export interface PushHub {
  notify(accountId: string): void;
  /** Calls listener on every notify for the account; returns the unsubscribe function. */
  subscribe(accountId: string, listener: () => void): () => void;
}

export function createPushHub(): PushHub {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    notify: (accountId) => void emitter.emit(accountId),
    subscribe(accountId, listener) {
      emitter.on(accountId, listener);
      return () => void emitter.off(accountId, listener);
    },
  };
}
