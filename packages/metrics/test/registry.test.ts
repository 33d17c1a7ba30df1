import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../src/index.ts';

describe('createMetricsRegistry', () => {
  it('collects process metrics and event-loop lag by default', async () => {
    const text = await createMetricsRegistry().metrics();
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
  });

  it('gives each app its own registry, and can leave process metrics out', async () => {
    const a = createMetricsRegistry({ processMetrics: false });
    const b = createMetricsRegistry({ processMetrics: false });
    expect(a).not.toBe(b);
    expect((await a.metrics()).trim()).toBe('');
  });
});
