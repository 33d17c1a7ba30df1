import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestClock, TEST_CLOCK_PATH, withTestClock } from '../../src/dev/test-clock.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the test clock', () => {
  it('is the system time plus the steps taken', () => {
    let system = 1_000_000;
    const clock = createTestClock(() => system);
    expect(clock.now()).toBe(1_000_000);
    clock.advance(5);
    expect(clock.now()).toBe(1_005_000);
    system += 250;
    expect(clock.now()).toBe(1_005_250);
  });

  it('POST /test-clock/advance?seconds=n moves it; other values, methods and paths are not its own', async () => {
    const clock = createTestClock(() => 1_000_000);
    const url = await serve(withTestClock(clock, (_req, res) => res.end('the app')));
    const moved = await fetch(`${url}${TEST_CLOCK_PATH}?seconds=61`, { method: 'POST' });
    expect(moved.status).toBe(200);
    expect(moved.headers.get('cache-control')).toBe('no-store');
    expect(await moved.json()).toEqual({ now: 1_061_000 });
    expect(clock.now()).toBe(1_061_000);
    for (const seconds of ['0', '-5', '1.5', '86401', 'x', '']) {
      const refused = await fetch(`${url}${TEST_CLOCK_PATH}?seconds=${seconds}`, { method: 'POST' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'invalid_request', error_description: 'seconds must be a whole number from 1 to 86400' });
    }
    const got = await fetch(`${url}${TEST_CLOCK_PATH}?seconds=5`);
    expect(got.status).toBe(405);
    expect(got.headers.get('allow')).toBe('POST');
    expect(clock.now()).toBe(1_061_000);
    expect(await (await fetch(`${url}/account`)).text()).toBe('the app');
  });
});
