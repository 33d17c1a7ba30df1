import { describe, expect, it } from 'vitest';
import { createBackchannelLogout, type DeliveryOutcome } from '../../src/sessions/backchannel-logout.ts';

type Recorded = { event: string; fields: Record<string, unknown> };

function setup(answer: (url: string, attempt: number) => Promise<Response> | Response, options: { retryDelaysMs?: number[]; maxPending?: number; timeoutMs?: number } = {}) {
  let now = 1_000_000;
  const posted: { url: string; body: string; contentType: string | null }[] = [];
  const audited: Recorded[] = [];
  const counted: DeliveryOutcome[] = [];
  const attempts = new Map<string, number>();
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    const n = (attempts.get(url) ?? 0) + 1;
    attempts.set(url, n);
    posted.push({ url, body: String(init?.body), contentType: new Headers(init?.headers).get('content-type') });
    if (init?.signal) {
      return Promise.race([
        Promise.resolve(answer(url, n)),
        new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason))),
      ]);
    }
    return answer(url, n);
  }) as typeof fetch;
  const backchannel = createBackchannelLogout({
    sign: async (clientId, sub, sid) => (clientId === 'no-uri' ? undefined : { uri: `https://${clientId}.example/bc`, token: `token-for-${clientId}-${sub}-${sid ?? ''}`, clientName: clientId.toUpperCase() }),
    fetch: fetchStub,
    clock: () => now,
    audit: { record: (event, fields) => void audited.push({ event, fields: fields as Record<string, unknown> }) },
    count: (outcome) => void counted.push(outcome),
    logger: { warn: () => undefined },
    ...options,
  });
  return { backchannel, posted, audited, counted, advance: (ms: number) => void (now += ms) };
}

describe('back-channel logout delivery', () => {
  it('posts one form-encoded logout token per client with a URI and says who was told', async () => {
    const { backchannel, posted, counted, audited } = setup(() => new Response(null, { status: 200 }));
    const told = await backchannel.sessionsEnded([{ accountId: 'acc', clients: [{ clientId: 'one', sid: 's1' }, { clientId: 'no-uri', sid: 's2' }, { clientId: 'two', sid: undefined }] }]);
    expect(told).toEqual([
      { clientId: 'one', clientName: 'ONE', delivered: true },
      { clientId: 'two', clientName: 'TWO', delivered: true },
    ]);
    expect(posted).toEqual([
      { url: 'https://one.example/bc', body: 'logout_token=token-for-one-acc-s1', contentType: 'application/x-www-form-urlencoded' },
      { url: 'https://two.example/bc', body: 'logout_token=token-for-two-acc-', contentType: 'application/x-www-form-urlencoded' },
    ]);
    expect(counted).toEqual(['delivered', 'delivered']);
    expect(audited).toEqual([]);
    expect(backchannel.pending()).toBe(0);
  });

  it('retries a failed delivery after each delay by the clock, then abandons it; every failure is audited', async () => {
    const { backchannel, audited, counted, advance, posted } = setup(() => new Response('no', { status: 503 }), { retryDelaysMs: [1_000, 5_000] });
    const told = await backchannel.sessionsEnded([{ accountId: 'acc', clients: [{ clientId: 'one', sid: 's1' }] }]);
    expect(told).toEqual([{ clientId: 'one', clientName: 'ONE', delivered: false }]);
    expect(backchannel.pending()).toBe(1);
    advance(999);
    await backchannel.runDue();
    expect(posted.length).toBe(1);
    advance(1);
    await backchannel.runDue();
    expect(posted.length).toBe(2);
    advance(4_999);
    await backchannel.runDue();
    expect(posted.length).toBe(2);
    advance(1);
    await backchannel.runDue();
    expect(posted.length).toBe(3);
    expect(backchannel.pending()).toBe(0);
    advance(3_600_000);
    await backchannel.runDue();
    expect(posted.length).toBe(3);
    expect(audited).toEqual([
      { event: 'session.backchannel_logout.failed', fields: { client_id: 'one', attempt: 1, reason: 'status', status: 503, retried: true } },
      { event: 'session.backchannel_logout.failed', fields: { client_id: 'one', attempt: 2, reason: 'status', status: 503, retried: true } },
      { event: 'session.backchannel_logout.failed', fields: { client_id: 'one', attempt: 3, reason: 'status', status: 503, retried: false } },
    ]);
    expect(counted).toEqual(['retrying', 'retrying', 'abandoned']);
  });

  it('a client that never answers costs the sign-out at most the timeout, and a retry delivers later', async () => {
    const { backchannel, audited, counted, advance } = setup((url, attempt) => (url.includes('slow') && attempt === 1 ? new Promise<Response>(() => undefined) : new Response(null, { status: 204 })), { timeoutMs: 50 });
    const started = performance.now();
    const told = await backchannel.sessionsEnded([{ accountId: 'acc', clients: [{ clientId: 'slow', sid: 's' }, { clientId: 'fast', sid: 's' }] }]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(told).toEqual([
      { clientId: 'slow', clientName: 'SLOW', delivered: false },
      { clientId: 'fast', clientName: 'FAST', delivered: true },
    ]);
    expect(audited).toEqual([{ event: 'session.backchannel_logout.failed', fields: { client_id: 'slow', attempt: 1, reason: 'timeout', retried: true } }]);
    advance(10_000);
    await backchannel.runDue();
    expect(counted).toEqual(['delivered', 'retrying', 'delivered']);
    expect(backchannel.pending()).toBe(0);
  });

  it('a network failure is `network`; beyond maxPending waiting deliveries, a failure is abandoned at once', async () => {
    const { backchannel, audited, counted } = setup(() => Promise.reject(new TypeError('fetch failed')), { maxPending: 1 });
    await backchannel.sessionsEnded([{ accountId: 'acc', clients: [{ clientId: 'one', sid: 's' }] }]);
    await backchannel.sessionsEnded([{ accountId: 'acc', clients: [{ clientId: 'two', sid: 's' }] }]);
    expect(backchannel.pending()).toBe(1);
    expect(audited.map((a) => a.fields)).toEqual([
      { client_id: 'one', attempt: 1, reason: 'network', retried: true },
      { client_id: 'two', attempt: 1, reason: 'network', retried: false },
    ]);
    expect(counted).toEqual(['retrying', 'abandoned']);
  });

  it('at shutdown every delivery still waiting is dropped: audited with its attempts and due time, counted abandoned, never posted', async () => {
    const { backchannel, audited, counted, advance, posted } = setup((url) => new Response(null, { status: url.includes('one') ? 500 : 200 }), { retryDelaysMs: [1_000, 5_000] });
    await backchannel.sessionsEnded([{ accountId: 'acc', clients: [{ clientId: 'one', sid: 's1' }, { clientId: 'two', sid: 's2' }] }]);
    advance(1_000);
    await backchannel.runDue();
    expect([backchannel.pending(), posted.length]).toEqual([1, 3]);
    audited.length = 0;
    counted.length = 0;
    expect(backchannel.dropPending()).toBe(1);
    expect(audited).toEqual([{ event: 'session.backchannel_logout.dropped', fields: { client_id: 'one', attempts: 2, due_at: new Date(1_000_000 + 1_000 + 5_000).toISOString() } }]);
    expect(counted).toEqual(['abandoned']);
    expect(backchannel.pending()).toBe(0);
    advance(10_000);
    await backchannel.runDue();
    expect(posted.length).toBe(3);
    expect(backchannel.dropPending()).toBe(0);
    expect(audited.length).toBe(1);
  });
});
