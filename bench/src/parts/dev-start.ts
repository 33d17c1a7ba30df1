/**
 * The start-up part (bench/README.md, "Start-up"): `pnpm dev` from the command to the last of
 * the four servers answering `/healthz` 200 (dev-ready.ts). Rules:
 * - it runs before the production stacks start, so nothing else of the suite shares the cores;
 * - three figures: a first start as after `pnpm install` on a fresh clone (a fresh data folder
 *   whose compile cache the install's last step filled), a warm start (that folder again) and,
 *   for information, a cold first start (a fresh folder, nothing compiled).
 */
import type { Figure } from '../budgets.ts';
import type { Context } from '../context.ts';
import { inFreshDataDir, measureDevReady, prepareAsAfterInstall, type DevReady } from '../dev-ready.ts';

export const DEV_FIRST = 'pnpm dev ready, first start after install';
export const DEV_WARM = 'pnpm dev ready, warm start';
export const DEV_COLD = 'pnpm dev ready, cold first start';

const note = (ready: DevReady) => Object.entries(ready.servers).map(([name, ms]) => `${name} ${ms} ms`).join(', ');

export async function devStart(context: Context): Promise<Figure[]> {
  const figure = (name: string, ready: DevReady): Figure => {
    context.log(`  ${name}: ${ready.ms} ms (${note(ready)})`);
    return { name, value: ready.ms, unit: 'ms', note: note(ready) };
  };
  const cold = figure(DEV_COLD, await inFreshDataDir(context.processes.dir, (dataDir) => measureDevReady({ dataDir })));
  return inFreshDataDir(context.processes.dir, async (dataDir) => {
    prepareAsAfterInstall(dataDir);
    const first = figure(DEV_FIRST, await measureDevReady({ dataDir }));
    const warm = figure(DEV_WARM, await measureDevReady({ dataDir }));
    return [first, warm, cold];
  });
}
