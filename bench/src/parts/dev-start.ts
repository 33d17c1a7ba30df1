/**
 * The start-up part (bench/README.md, "Start-up"): `pnpm dev` from the command to the last of
 * the four servers answering `/healthz` 200 (dev-ready.ts). Rules:
 * - it runs before the production stacks start, so nothing else of the suite shares the cores;
 * - a first start (a fresh data folder) and a warm start (the same folder again) are both figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Figure } from '../budgets.ts';
import type { Context } from '../context.ts';
import { measureDevReady, type DevReady } from '../dev-ready.ts';

export const DEV_FIRST = 'pnpm dev ready, first start';
export const DEV_WARM = 'pnpm dev ready, warm start';

const note = (ready: DevReady) => Object.entries(ready.servers).map(([name, ms]) => `${name} ${ms} ms`).join(', ');

export async function devStart(context: Context): Promise<Figure[]> {
  const dataDir = mkdtempSync(join(context.processes.dir, 'dev-'));
  try {
    const first = await measureDevReady({ dataDir });
    context.log(`  ${DEV_FIRST}: ${first.ms} ms (${note(first)})`);
    const warm = await measureDevReady({ dataDir });
    context.log(`  ${DEV_WARM}: ${warm.ms} ms (${note(warm)})`);
    return [
      { name: DEV_FIRST, value: first.ms, unit: 'ms', note: note(first) },
      { name: DEV_WARM, value: warm.ms, unit: 'ms', note: note(warm) },
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
