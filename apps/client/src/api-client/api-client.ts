/**
 * Calls to the resource server with the session's access token.
 * Rules:
 * - `Authorization: Bearer <access token>`, `Accept: application/json`, API version v1 in the path
 *   (a list is a JSON array);
 * - a 401 makes the token be refreshed and the call repeated once; a refused refresh propagates
 *   (the caller sends the user to log in again);
 * - any other error answer becomes an {@link ApiProblem} from the RFC 9457 body (status, code,
 *   title, detail), shown to the user as a message; an unreachable API is a 502 problem;
 * - the access token never appears in a problem or a log line.
 */
import type { Context } from 'koa';
import { ProblemDetails } from '@gatehouse/contracts';
import type { AccessTokens } from '../sessions/access-token.ts';

export interface Item {
  id: number;
  [field: string]: unknown;
}

export interface ApiProblem {
  status: number;
  code: string;
  title: string;
  detail?: string;
}

export type ApiOutcome<T> = { ok: true; value: T } | { ok: false; problem: ApiProblem };

export interface ApiClient {
  list(ctx: Context): Promise<ApiOutcome<Item[]>>;
  create(ctx: Context, item: Item): Promise<ApiOutcome<Item>>;
  remove(ctx: Context, id: number): Promise<ApiOutcome<null>>;
}

export interface ApiClientDeps {
  apiUrl: string;
  collection: string;
  tokens: AccessTokens;
  fetch: typeof globalThis.fetch;
}

const TIMEOUT_MS = 10_000;

async function problemOf(response: Response): Promise<ApiProblem> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = ProblemDetails.safeParse(body);
  if (parsed.success) {
    return { status: response.status, code: parsed.data.code ?? 'error', title: parsed.data.title, detail: parsed.data.detail };
  }
  return { status: response.status, code: 'error', title: response.statusText || `HTTP ${response.status}` };
}

export function createApiClient(deps: ApiClientDeps): ApiClient {
  const base = `${deps.apiUrl}/api/v1/${encodeURIComponent(deps.collection)}`;

  async function call(ctx: Context, path: string, init: { method: string; body?: string }): Promise<Response | ApiProblem> {
    const send = async (token: string): Promise<Response> =>
      deps.fetch(`${base}${path}`, {
        method: init.method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(init.body ? { 'content-type': 'application/json' } : {}),
        },
        body: init.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    let token = await deps.tokens.current(ctx);
    try {
      let response = await send(token);
      if (response.status === 401) {
        await response.body?.cancel();
        token = await deps.tokens.renew(ctx, token);
        response = await send(token);
      }
      return response;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'refresh_refused' || code === 'authorization_server_unavailable') throw error;
      return { status: 502, code: 'api_unreachable', title: 'The API could not be reached', detail: 'Try again in a moment.' };
    }
  }

  return {
    async list(ctx) {
      const response = await call(ctx, '', { method: 'GET' });
      if (!(response instanceof Response)) return { ok: false, problem: response };
      if (response.status !== 200) return { ok: false, problem: await problemOf(response) };
      const body = (await response.json()) as unknown;
      const items = Array.isArray(body) ? body : [];
      return { ok: true, value: items.filter((i): i is Item => typeof i === 'object' && i !== null && typeof (i as Item).id === 'number') };
    },
    async create(ctx, item) {
      const response = await call(ctx, '', { method: 'POST', body: JSON.stringify(item) });
      if (!(response instanceof Response)) return { ok: false, problem: response };
      if (response.status !== 201 && response.status !== 200) return { ok: false, problem: await problemOf(response) };
      return { ok: true, value: (await response.json()) as Item };
    },
    async remove(ctx, id) {
      const response = await call(ctx, `/${id}`, { method: 'DELETE' });
      if (!(response instanceof Response)) return { ok: false, problem: response };
      if (response.status !== 204 && response.status !== 200) return { ok: false, problem: await problemOf(response) };
      await response.body?.cancel();
      return { ok: true, value: null };
    },
  };
}
