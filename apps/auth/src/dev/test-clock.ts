/**
 * The clock whole-stack tests move (AUTH_TEST_CLOCK=true, refused in production). The server runs
 * as a process of its own there, so a test cannot hand it a fake clock; it moves this one over
 * HTTP instead of sleeping. Rules:
 * - the time is the system clock's plus an offset, and the offset only grows;
 * - POST /test-clock/advance?seconds=<n> (a whole number from 1 to 86400) moves the time n seconds
 *   on and answers 200 `{ "now": <epoch ms> }`; another n is 400, another method 405;
 * - the route is answered in front of the app (server.ts), and exists only with the setting on.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export const TEST_CLOCK_PATH = '/test-clock/advance';

const MAX_STEP_SECONDS = 86_400;

export interface TestClock {
  /** Epoch milliseconds: the system clock's plus every step taken. */
  now(): number;
  /** Moves the time `seconds` on. */
  advance(seconds: number): void;
}

export function createTestClock(system: () => number = Date.now): TestClock {
  let offset = 0;
  return {
    now: () => system() + offset,
    advance: (seconds) => {
      offset += seconds * 1000;
    },
  };
}

function answer(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** `handler`, with the clock's route answered in front of it. */
export function withTestClock(clock: TestClock, handler: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://test-clock');
    if (url.pathname !== TEST_CLOCK_PATH) return handler(req, res);
    if (req.method !== 'POST') return answer(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
    const text = url.searchParams.get('seconds') ?? '';
    const seconds = /^[1-9][0-9]{0,5}$/.test(text) ? Number(text) : 0;
    if (seconds < 1 || seconds > MAX_STEP_SECONDS) return answer(res, 400, { error: 'invalid_request', error_description: `seconds must be a whole number from 1 to ${MAX_STEP_SECONDS}` });
    clock.advance(seconds);
    answer(res, 200, { now: clock.now() });
  };
}
