/** An audit line, and the stored event, name the request being answered; outside a request, none. */
import { describe, expect, it } from 'vitest';
import { createAuditSink } from '../../src/audit/audit-sink.ts';
import { createAuditor } from '../../src/audit/auditor.ts';
import type { AuditRecord } from '../../src/audit/audit-event-store.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { requestScope } from '../../src/logging/request-scope.ts';

describe('requestScope', () => {
  it('gives the audit lines and rows of a request its id, across awaits; nothing outside', async () => {
    const lines: Record<string, unknown>[] = [];
    const base = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    const rows: AuditRecord[] = [];
    const sink = createAuditSink({ store: { append: async (records) => void rows.push(...records) }, clock: () => 0, logger: base });
    const auditor = createAuditor({ logger: base, sink });
    await requestScope({ state: { requestId: 'req-42' } }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      auditor.record('login.password.failure', { username: 'erin', ip: '10.0.0.5' });
    });
    auditor.record('admin.user.enabled', { actor_kind: 'operator', actor: 'cli', account_id: 'acc-5' });
    await sink.flush();
    expect(lines.map((l) => [l.event, l.request_id])).toEqual([
      ['login.password.failure', 'req-42'],
      ['admin.user.enabled', undefined],
    ]);
    expect(rows.map((r) => [r.event, r.requestId, r.fields])).toEqual([
      ['login.password.failure', 'req-42', {}],
      ['admin.user.enabled', null, {}],
    ]);
  });
});
