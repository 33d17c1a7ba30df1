/**
 * What every comparison of the suite shares (bench/README.md, "How it measures"). Rules:
 * - a measurement is one closed-loop load of `seconds` on one server (load.ts); any answer that is
 *   not 2xx fails the run, since a benchmark of errors measures nothing;
 * - the server's CPU time per operation (from /proc) is summed over a comparison's rounds, split by
 *   its threads' work (event loop, V8's helpers, libuv's pool: process-cpu.ts), and on PostgreSQL
 *   the CPU of every `postgres` process in the same rounds too: neighbours barely move these, so
 *   they are printed next to the ratio;
 * - a comparison becomes a figure named as its budget names it, with its pairs and CPU as the note.
 */
import { runLoad, type Script } from './load.ts';
import type { Figure } from './budgets.ts';
import type { Comparison } from './paired.ts';
import { emptyThreadCpu, threadCpu, type ThreadCpu } from './process-cpu.ts';
import { cpuMicros, postgresCpuMicros, type Engine } from './stack.ts';

/** CPU time a server spent per operation, summed over a comparison's rounds. */
export class CpuMeter {
  micros = 0;
  ops = 0;
  /** The same time by the threads that spent it (a thread that ended meanwhile is in `micros` only). */
  threads: ThreadCpu = emptyThreadCpu();
  /** PostgreSQL's CPU in the same rounds, when this side stores in PostgreSQL. */
  postgresMicros: number | undefined;
  constructor(engine?: Engine) {
    if (engine === 'postgres') this.postgresMicros = 0;
  }
  /** `micros` (this meter's, by default) per operation. */
  perOp(micros = this.micros): number {
    return micros / Math.max(1, this.ops);
  }
  reset(): void {
    this.micros = this.ops = 0;
    this.threads = emptyThreadCpu();
    if (this.postgresMicros !== undefined) this.postgresMicros = 0;
  }
}

/** A server under load: where it listens, its process, its meter. */
export interface Target {
  readonly port: number;
  readonly pid: number;
  readonly cpu: CpuMeter;
}

/** One measurement: `connections` loops for `seconds`; answers operations per second. */
export async function measure(target: Target, seconds: number, connections: number, script: (i: number) => Script, perOperation = 1): Promise<number> {
  const before = cpuMicros(target.pid);
  const threadsBefore = threadCpu(target.pid);
  const postgresBefore = target.cpu.postgresMicros === undefined ? 0 : postgresCpuMicros();
  const result = await runLoad({ port: target.port, connections, durationMs: seconds * 1000, script });
  target.cpu.micros += cpuMicros(target.pid) - before;
  const threadsAfter = threadCpu(target.pid);
  for (const group of Object.keys(threadsAfter) as (keyof ThreadCpu)[]) target.cpu.threads[group] += threadsAfter[group] - threadsBefore[group];
  if (target.cpu.postgresMicros !== undefined) target.cpu.postgresMicros += postgresCpuMicros() - postgresBefore;
  target.cpu.ops += result.requests / perOperation;
  if (result.non2xx > 0) throw new Error(`${result.non2xx} of ${result.requests} responses on port ${target.port} were not 2xx`);
  return result.perSecond / perOperation;
}

const rate = (n: number) => Math.round(n).toString().padStart(7);

/** The log line of one round. */
export function roundLogger(log: (line: string) => void, name: string, unit: string) {
  return (round: number, subject: number, baseline: number) =>
    log(`  ${name.padEnd(44)} round ${String(round).padStart(2)}: ${rate(subject)} vs ${rate(baseline)} ${unit}  ratio ${(subject / baseline).toFixed(3)}`);
}

/** A comparison as a figure: the ratio, with both rates, the pairs and the CPU per operation as its note. */
export function ratioFigure(comparison: Comparison, subject?: CpuMeter, baseline?: CpuMeter): Figure {
  const perOp = (micros: number, meter: CpuMeter) => meter.perOp(micros).toFixed(0);
  const cpu = (meter: CpuMeter) =>
    `${meter.perOp().toFixed(0)} µs (event loop ${perOp(meter.threads.eventLoop, meter)}, V8 helpers ${perOp(meter.threads.v8Helpers, meter)}, libuv pool ${perOp(meter.threads.libuvPool, meter)})` +
    (meter.postgresMicros === undefined ? '' : ` + PostgreSQL ${perOp(meter.postgresMicros, meter)} µs`);
  const parts = [`${rate(comparison.subject).trim()} vs ${rate(comparison.baseline).trim()} /s`, `pairs ${comparison.pairs.map((p) => p.toFixed(2)).join(' ')}`];
  if (subject) parts.push(`server CPU/op ${cpu(subject)}${baseline ? ` vs ${cpu(baseline)}` : ''}`);
  return { name: comparison.name, value: comparison.ratio, unit: '×', note: parts.join('; ') };
}
