/**
 * The Server-Sent Events streams this instance holds open (push requests to authenticators,
 * the revocation feed), so a graceful shutdown can end them all with a `retry:` hint and the
 * clients reconnect to another instance instead of waiting for a dead socket.
 */
export interface StreamRegistry {
  /** Registers a stream's closer; returns the function that unregisters it. */
  add(close: (retryMs: number) => void): () => void;
  /** Ends every open stream, telling clients to reconnect after `retryMs`. */
  closeAll(retryMs?: number): void;
  readonly size: number;
}

export function createStreamRegistry(): StreamRegistry {
  const streams = new Set<(retryMs: number) => void>();
  return {
    add(close) {
      streams.add(close);
      return () => void streams.delete(close);
    },
    closeAll(retryMs = 1_000) {
      for (const close of [...streams]) close(retryMs);
      streams.clear();
    },
    get size() {
      return streams.size;
    },
  };
}
