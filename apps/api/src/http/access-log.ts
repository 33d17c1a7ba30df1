/**
 * The API's request line: the shared one of @gatehouse/http (`http_request` with request_id,
 * method, path without the query, status, duration_ms; 5xx error, 4xx debug, else info) plus
 * what the API learned about the request: the resolved version, the representation, and the
 * token's client and subject. Never a header or the query (it may carry a refused `access_token`).
 */
import { accessLog, type AccessLogger } from '@gatehouse/http';
import type { ApiState } from './state.ts';

/** The API's fields of a request line, from what the request established. */
export function apiLineFields(state: Pick<ApiState, 'version' | 'negotiated' | 'principal'>): Record<string, unknown> {
  return {
    version: state.version ? `v${state.version.version}` : undefined,
    representation: state.negotiated?.representation,
    client_id: state.principal?.clientId,
    subject: state.principal?.subject,
  };
}

export function apiAccessLog(logger: AccessLogger, clock: () => number) {
  return accessLog<ApiState>(logger, { clock, fields: (ctx) => apiLineFields(ctx.state) });
}
