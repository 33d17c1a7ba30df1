/**
 * The budgets `pnpm bench` checks and the one summary table it prints (bench/README.md, "Budgets"). Rules:
 * - a budget is a bound on one named figure: at least (a ratio) or at most (megabytes, milliseconds);
 * - every budget of a part that ran gets a row; a budget whose figure was not measured is MISSED;
 * - figures without a budget are printed as reported, and never fail the run;
 * - the run fails when any budget is MISSED.
 */

export type Bound = { readonly atLeast: number } | { readonly atMost: number };

export interface Budget {
  /** The number for it (#1, #3a …). */
  readonly id: string;
  /** The figure it bounds, by name (as a part reports it). */
  readonly figure: string;
  readonly bound: Bound;
  /** '×' for a ratio, or a unit such as 'MB' or 'ms'. */
  readonly unit: string;
}

export interface Figure {
  readonly name: string;
  readonly value: number;
  /** '×' for a ratio, or a unit such as 'MB' or 'ms'. */
  readonly unit: string;
  /** Printed under the row: pairs, CPU per operation, rates. */
  readonly note?: string;
}

export interface Row {
  readonly id: string;
  readonly name: string;
  readonly figure: Figure | undefined;
  readonly budget: Budget | undefined;
  readonly verdict: 'ok' | 'MISSED' | 'reported';
}

export function holds(bound: Bound, value: number): boolean {
  return 'atLeast' in bound ? value >= bound.atLeast : value <= bound.atMost;
}

/** One row per budget (in the order given), then one per figure without a budget. */
export function judge(budgets: readonly Budget[], figures: readonly Figure[]): Row[] {
  const byName = new Map(figures.map((f) => [f.name, f]));
  const budgeted = new Set(budgets.map((b) => b.figure));
  const rows: Row[] = budgets.map((budget) => {
    const figure = byName.get(budget.figure);
    return { id: budget.id, name: budget.figure, figure, budget, verdict: figure !== undefined && holds(budget.bound, figure.value) ? 'ok' : 'MISSED' };
  });
  for (const figure of figures) if (!budgeted.has(figure.name)) rows.push({ id: '', name: figure.name, figure, budget: undefined, verdict: 'reported' });
  return rows;
}

const amount = (value: number, unit: string) => (unit === '×' ? `${value.toFixed(3)}×` : `${value.toFixed(unit === 'ms' ? 0 : 1)} ${unit}`);
const limit = (value: number, unit: string) => (unit === '×' ? `${value.toFixed(2)}×` : `${value} ${unit}`);
const boundText = (budget: Budget) => ('atLeast' in budget.bound ? `≥ ${limit(budget.bound.atLeast, budget.unit)}` : `≤ ${limit(budget.bound.atMost, budget.unit)}`);

/** The summary table: figure, budget, verdict; notes indented under their row. */
export function summaryLines(rows: readonly Row[]): string[] {
  const nameWidth = Math.max(6, ...rows.map((r) => r.name.length));
  const lines = [`  ${'#'.padEnd(4)} ${'figure'.padEnd(nameWidth)} ${'value'.padStart(12)}  ${'budget'.padEnd(10)} verdict`];
  for (const row of rows) {
    const value = row.figure === undefined ? 'not measured' : amount(row.figure.value, row.figure.unit);
    const budget = row.budget === undefined ? '' : boundText(row.budget);
    lines.push(`  ${row.id.padEnd(4)} ${row.name.padEnd(nameWidth)} ${value.padStart(12)}  ${budget.padEnd(10)} ${row.verdict}`);
    if (row.figure?.note) lines.push(`  ${''.padEnd(4)} ${''.padEnd(nameWidth)} ${row.figure.note}`);
  }
  return lines;
}
