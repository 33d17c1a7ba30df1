/**
 * Recognises the errors that mean "the database cannot be reached right now" (a PostgreSQL
 * restart, a terminated connection, a refused or timed-out connect), as opposed to a bug or a
 * bad query. Apps answer those with 503 and a Retry-After, never a 500 or a crash; the pool
 * reconnects on the next query once the database is back. A prepared statement that a migration
 * made stale inside a transaction counts too: the next attempt runs it prepared again.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), 53300 (too many connections).
const SQLSTATES = /^(08\d{3}|57P0[123]|53300)$/;
const MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|is not currently accepting connections|Cannot use a pool after calling end/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    if (typeof e !== 'object') return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.test(code))) return true;
    // A named statement whose columns a migration changed, met inside a transaction: the connection
    // has already prepared it again (pg-named-statements.ts), so the request succeeds when retried.
    if (code === '0A000' && (e as { routine?: unknown }).routine === 'RevalidateCachedQuery') return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
