/**
 * The two families of the request metrics, `<name>_total`-style counter and duration histogram,
 * kept as plain numbers per label set and handed to the registry when it is scraped. Rules:
 * - one series per label set holds both: the counter's value is the histogram's count;
 * - what a scrape shows is what prom-client's own Counter and Histogram show for the same
 *   observations, line for line (same order, labels, buckets, `+Inf`, `_sum`, `_count`);
 *   test/request-series.test.ts compares the two;
 * - a label set is validated once, when its series is made; `observe` only adds;
 * - `reset()` (the registry's `resetMetrics`) empties every series, and a series shows again
 *   once it is observed, as prom-client's do.
 * Why: prom-client validates and hashes the labels of both metrics on every request, a large share
 * of the API's item read (bench/README.md, "API read"). Its exposition format is still its own:
 * these objects answer the registry's `get()` like its metrics.
 */
import type { Metric, Registry } from 'prom-client';

type Labels = Readonly<Record<string, string>>;

/** One label set's numbers. */
export interface RequestSeries {
  /** Counts one request that took `seconds`. */
  observe(seconds: number): void;
}

export interface RequestFamiliesOptions {
  readonly registry: Registry;
  readonly counter: { readonly name: string; readonly help: string };
  readonly histogram: { readonly name: string; readonly help: string; readonly buckets: readonly number[] };
  readonly labelNames: readonly string[];
}

export interface RequestFamilies {
  /** The series of one label set (made on first use; keep it, looking it up is the caller's). */
  series(labels: Labels): RequestSeries;
}

interface Stored extends RequestSeries {
  readonly labels: Labels;
  /** Per bucket, not cumulative; the last slot counts values above every bound. */
  readonly perBucket: Float64Array;
  count: number;
  sum: number;
}

interface ValuePair {
  value: number;
  /** prom-client's buckets carry `exemplar: null` when exemplars are off; kept for the same JSON. */
  exemplar?: null;
  labels: Record<string, string | number>;
  metricName?: string;
  sharedLabels?: Labels;
}

export function registerRequestFamilies(options: RequestFamiliesOptions): RequestFamilies {
  const bounds = [...options.histogram.buckets].sort((a, b) => a - b);
  const stored = new Map<string, Stored>();
  const shown = (): Stored[] => [...stored.values()].filter((s) => s.count > 0);

  function make(labels: Labels): Stored {
    const names = Object.keys(labels);
    if (names.length !== options.labelNames.length || !names.every((name) => options.labelNames.includes(name))) {
      throw new Error(`request metrics take the labels ${options.labelNames.join(', ')}, not ${names.join(', ')}`);
    }
    // The order prom-client keeps: the label names as declared.
    const ordered = Object.fromEntries(options.labelNames.map((name) => [name, String(labels[name])]));
    const series: Stored = {
      labels: ordered,
      perBucket: new Float64Array(bounds.length + 1),
      count: 0,
      sum: 0,
      observe(seconds) {
        if (!Number.isFinite(seconds)) throw new TypeError(`Value is not a valid number: ${seconds}`);
        let i = 0;
        while (i < bounds.length && seconds > bounds[i]!) i++;
        series.perBucket[i]!++;
        series.count++;
        series.sum += seconds;
      },
    };
    return series;
  }

  /** A metric as the registry reads it: `values` for JSON, `textValues` for the text output. */
  const family = (spec: { readonly name: string; readonly help: string }, type: string, values: () => ValuePair[], textValues = values) => {
    const metric = {
      name: spec.name,
      help: spec.help,
      type,
      aggregator: 'sum',
      async get() {
        return { name: metric.name, help: metric.help, type, aggregator: 'sum', values: values() };
      },
      async getForPromString() {
        return { name: metric.name, help: metric.help, type, aggregator: 'sum', values: textValues() };
      },
      reset,
    };
    return metric;
  };

  const histogramValues = (splay: boolean): ValuePair[] => {
    const name = options.histogram.name;
    const values: ValuePair[] = [];
    const pair = (metricName: string, labels: Record<string, string | number>, value: number, series: Stored, exemplar?: null): ValuePair =>
      splay ? { value, labels: { ...labels, ...series.labels }, metricName, exemplar } : { value, labels, metricName, exemplar, sharedLabels: series.labels };
    for (const series of shown()) {
      let cumulative = 0;
      bounds.forEach((bound, i) => {
        cumulative += series.perBucket[i]!;
        values.push(pair(`${name}_bucket`, { le: bound }, cumulative, series, null));
      });
      values.push(pair(`${name}_bucket`, { le: '+Inf' }, series.count, series, null));
      values.push(pair(`${name}_sum`, {}, series.sum, series));
      values.push(pair(`${name}_count`, {}, series.count, series));
    }
    return values;
  };
  const counter = family(options.counter, 'counter', () => shown().map((s): ValuePair => ({ value: s.count, labels: { ...s.labels } })));
  // The text output reads the labels and the series' labels apart, as prom-client's histogram gives them.
  const histogram = family(options.histogram, 'histogram', () => histogramValues(true), () => histogramValues(false));

  function reset(): void {
    for (const series of stored.values()) {
      series.perBucket.fill(0);
      series.count = 0;
      series.sum = 0;
    }
  }

  options.registry.registerMetric(counter as unknown as Metric);
  options.registry.registerMetric(histogram as unknown as Metric);
  return {
    series(labels) {
      const key = JSON.stringify(options.labelNames.map((name) => labels[name]));
      let series = stored.get(key);
      if (!series) stored.set(key, (series = make(labels)));
      return series;
    },
  };
}
