import type { CliContext } from './cli-context.ts';

/** Prints rows as left-aligned columns separated by two spaces. */
export function printTable(ctx: CliContext, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  for (const row of [header, ...rows]) {
    ctx.print(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
  }
}
