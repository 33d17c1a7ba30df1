/**
 * The request metrics' families (src/request-series.ts) against prom-client's own Counter and
 * Histogram fed the same observations: the same scrape text and JSON, before and after a reset.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerRequestFamilies } from '../src/request-series.ts';

const LABELS = ['method', 'route', 'status'] as const;
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const counterSpec = { name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.' };
const histogramSpec = { name: 'http_request_duration_seconds', help: 'Time to answer an HTTP request, by "method", route\\pattern and status.' };

function both() {
  const theirs = new Registry();
  const counter = new Counter({ ...counterSpec, labelNames: LABELS, registers: [theirs] });
  const histogram = new Histogram({ ...histogramSpec, labelNames: LABELS, buckets: BUCKETS, registers: [theirs] });
  const ours = new Registry();
  const families = registerRequestFamilies({ registry: ours, counter: counterSpec, histogram: { ...histogramSpec, buckets: BUCKETS }, labelNames: LABELS });
  const observe = (labels: Record<(typeof LABELS)[number], string>, seconds: number) => {
    counter.inc(labels);
    histogram.observe(labels, seconds);
    families.series(labels).observe(seconds);
  };
  return { theirs, ours, observe };
}

describe('request metric families', () => {
  it('scrape as prom-client’s Counter and Histogram do, for the same observations', async () => {
    const { theirs, ours, observe } = both();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const get = { method: 'GET', route: '/api/:collection/:id', status: '200' };
    // Values on a bound, between bounds, above every bound, zero and tiny.
    for (const seconds of [0, 1e-9, 0.005, 0.0050001, 0.3, 1, 10, 10.5, 42, 0.0123456789]) observe(get, seconds);
    observe({ method: 'POST', route: '/api/:collection', status: '201' }, 0.02);
    observe({ method: 'other', route: '(unmatched)', status: '404' }, 0.001);
    observe({ method: 'GET', route: '/api/:collection/:id', status: '404' }, 0.004);
    observe(get, 0.07);
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/:collection/:id",status="200"} 3\n');
    expect(text).toContain('http_requests_total{method="GET",route="/api/:collection/:id",status="200"} 11\n');
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    expect(await ours.getSingleMetricAsString('http_requests_total')).toBe(await theirs.getSingleMetricAsString('http_requests_total'));
  });

  it('empties on reset, and a series shows again once observed', async () => {
    const { theirs, ours, observe } = both();
    observe({ method: 'GET', route: '/a', status: '200' }, 0.01);
    observe({ method: 'GET', route: '/b', status: '200' }, 0.01);
    theirs.resetMetrics();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    observe({ method: 'GET', route: '/a', status: '200' }, 2);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).not.toContain('route="/b"');
  });

  it('refuses labels it was not made for, a non-finite value, and a second registration', () => {
    const registry = new Registry();
    const families = registerRequestFamilies({ registry, counter: counterSpec, histogram: { ...histogramSpec, buckets: BUCKETS }, labelNames: LABELS });
    expect(() => families.series({ method: 'GET', route: '/a' })).toThrow('request metrics take the labels method, route, status, not method, route');
    expect(() => families.series({ method: 'GET', route: '/a', status: '200', extra: 'x' })).toThrow(/not method, route, status, extra/);
    expect(() => families.series({ method: 'GET', route: '/a', status: '200' }).observe(Number.NaN)).toThrow(TypeError);
    expect(() => registerRequestFamilies({ registry, counter: counterSpec, histogram: { ...histogramSpec, buckets: BUCKETS }, labelNames: LABELS })).toThrow(/already been registered/);
  });
});
