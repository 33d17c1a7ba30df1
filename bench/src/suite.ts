/**
 * `pnpm bench`: Gatehouse against baselines and floors, side by side, in one interleaved run, with
 * every budget in one summary table (bench/README.md, "Budgets"). Not a test: it is not part of
 * `pnpm test`.
 * Rules:
 * - the settings are read once (settings.ts); the parts and their budgets are one table (parts.ts);
 * - every Gatehouse process runs as production does (built `dist/`, NODE_ENV=production, logs at
 *   info; stack.ts), on loopback; every loop is bounded by time or count;
 * - the load average is printed at the start and the end: on 2 shared cores the figures move with
 *   the neighbours;
 * - it exits 1 when a budget is missed or a part fails, 2 on a bad setting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { judge, summaryLines, type Figure } from './budgets.ts';
import { createContext } from './context.ts';
import { GROUPS, PARTS } from './parts.ts';
import { readSettings, SettingsError, type Settings } from './settings.ts';
import { Processes } from './stack.ts';

const log = (line: string) => console.log(line);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

let settings: Settings;
try {
  settings = readSettings(process.env, PARTS.map((p) => p.selector), GROUPS);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(error.message);
  process.exit(2);
}

const parts = PARTS.filter((part) => settings.only.has(part.selector));
log(`Node ${process.version}, ${cpus().length} CPUs, load average ${load()} (start)`);
log(`parts: ${parts.map((p) => p.selector).join(', ')}`);
log(
  `${settings.seconds} s per side and round, ${settings.rounds} rounds per budgeted comparison (${settings.infoRounds} per reported one), ` +
    `${settings.connections} connections (API), ${settings.tokenConnections} (token endpoint), ${settings.logins} logins × ${settings.loginConcurrency} concurrent per round`,
);
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
const processes = new Processes(dir, { cpuProfileDir: settings.cpuProfileDir, nodeOptions: settings.nodeOptions, keepDatabases: settings.keep });
const context = createContext(settings, processes, log);
const figures: Figure[] = [];
let failure: unknown;
try {
  for (const part of parts) {
    log('');
    log(`${part.name} (${part.selector})`);
    const started = performance.now();
    figures.push(...(await part.run(context)));
    log(`  ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
} catch (error) {
  failure = error;
} finally {
  await processes.stop();
  if (!settings.keep) rmSync(dir, { recursive: true, force: true });
  else log(`logs and databases kept in ${dir}`);
}

const rows = judge(
  parts.flatMap((p) => p.budgets),
  figures,
);
log('');
log(`Summary (load average ${load()} at the end; ratios are medians of paired rounds)`);
for (const line of summaryLines(rows)) log(line);
const missed = rows.filter((r) => r.verdict === 'MISSED').length;
if (failure !== undefined) {
  console.error(failure);
  log('the run stopped on the error above: every budget not measured is MISSED');
}
log(missed === 0 && failure === undefined ? 'every budget ok' : `${missed} budget(s) MISSED`);
process.exitCode = missed > 0 || failure !== undefined ? 1 : 0;
