/**
 * One side-by-side comparison: a subject (Gatehouse) against its baseline, measured in
 * alternating rounds (A,B then B,A …) of one run. Rules, as in apps/api/bench/token-validation.bench.ts
 * (bench/README.md, "How it measures"):
 * - warm-up measurements of each side come first and are not counted;
 * - the rounds are an even number (an odd request is rounded up), so every order is paired with
 *   its reverse;
 * - each round yields its own subject/baseline ratio from two measurements seconds apart, so
 *   slow drift of the machine (the neighbours on 2 shared cores) cancels out;
 * - the one measured second in a round runs a little differently (the other process collected
 *   its garbage meanwhile), and the order flips every round, so two consecutive rounds are
 *   combined by their geometric mean;
 * - the figure is the median of those pair ratios, which a few disturbed rounds do not move;
 *   the subject's and the baseline's rates are reported as the medians of their rounds.
 */
export interface Measure {
  /** Runs one measurement and answers its rate (operations per second). */
  (): Promise<number>;
}

export interface Comparison {
  readonly name: string;
  readonly subject: number;
  readonly baseline: number;
  /** Median of the pair ratios subject/baseline. */
  readonly ratio: number;
  readonly pairs: readonly number[];
  /** Minimum acceptable ratio, if this comparison has a budget. */
  readonly budget: number | undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function compare(options: {
  name: string;
  subject: Measure;
  baseline: Measure;
  rounds: number;
  budget?: number;
  /** Warm-up measurements of each side before the rounds (default 1). */
  warmups?: number;
  /** Called once per round with both rates (for the log). */
  onRound?: (round: number, subject: number, baseline: number) => void;
  /** Waits between measurements (default: a real timer; tests pass one that does not wait). */
  pause?: (ms: number) => Promise<void>;
}): Promise<Comparison> {
  const pause = options.pause ?? sleep;
  const rounds = 2 * Math.ceil(options.rounds / 2);
  // Warm-up: JIT, pools, caches; not counted.
  for (let i = 0; i < (options.warmups ?? 1); i++) {
    await options.subject();
    await options.baseline();
  }
  const subjects: number[] = [];
  const baselines: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let s: number;
    let b: number;
    await pause(200);
    if (i % 2 === 0) {
      s = await options.subject();
      await pause(200);
      b = await options.baseline();
    } else {
      b = await options.baseline();
      await pause(200);
      s = await options.subject();
    }
    subjects.push(s);
    baselines.push(b);
    ratios.push(s / b);
    options.onRound?.(i + 1, s, b);
  }
  const pairs = ratios.flatMap((r, i) => (i % 2 === 1 ? [Math.sqrt(ratios[i - 1]! * r)] : []));
  return { name: options.name, subject: median(subjects), baseline: median(baselines), ratio: median(pairs), pairs, budget: options.budget };
}
