/**
 * `pnpm dev`: app-one and app-two from source, in one process, each a separate instance.
 * Rules:
 * - each app gets the environment the launcher would give its process (launcher.ts childEnv:
 *   its own CLIENT_* settings from APP_ONE_* / APP_TWO_*, never the other's), and from it its
 *   own configuration, development secrets and cookie keys, database (its own SQLite file, or its
 *   own rows), Koa app, sessions, logger, listener and metrics listener; only the Node process,
 *   its event loop and the loaded modules are shared (one process loads the modules once, where
 *   two processes and a launcher each paid for their start, bench/README.md, "Start-up");
 * - before either starts, the launcher's check reports every problem of both at once
 *   (launcher.ts checkLaunch), and nothing starts;
 * - each app runs the one start-up path (packages/runtime runServer); its log lines are formatted
 *   for a terminal (@gatehouse/devlog) and every line it writes, log or failure, is prefixed
 *   `[app-one] ` / `[app-two] `, as the launcher prefixes its children's;
 * - a failure of either (its database, its port) prints its one line and ends the process, so
 *   neither runs half-started; the dev script's watcher (`node --watch-path`) starts both again
 *   on the next change under `src/` or `packages/`;
 * - SIGINT/SIGTERM: both stop taking requests, finish the ones in flight and close their
 *   databases, then the process exits 0.
 * `pnpm start` keeps one process per app (launcher.ts launch).
 */
import { ConfigError } from '@gatehouse/config';
import { formatLogLine } from '@gatehouse/devlog';
import type { DestinationStream } from '@gatehouse/logging';
import { runServer, type RunningServer } from '@gatehouse/runtime';
import { APPS, checkLaunch, childEnv } from './launcher.ts';
import { clientServer } from './server.ts';

/** A writer that formats each line (`format`) and puts `label` before every line of the result. */
function labelled(label: string, out: (text: string) => void, format: (line: string) => string): (text: string) => void {
  return (text) => {
    for (const line of text.split('\n')) if (line !== '') out(`${format(line).replace(/^/gm, `${label} `)}\n`);
  };
}

export async function runDevApps(env: NodeJS.ProcessEnv = process.env): Promise<readonly RunningServer[]> {
  try {
    checkLaunch(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`client: ${error.message}\n`);
    process.exit(1);
  }
  const stdout = (text: string) => void process.stdout.write(text);
  const stderr = (text: string) => void process.stderr.write(text);
  const stopped = new Set<string>();
  const running = await Promise.all(
    APPS.map((app) => {
      const label = `[${app.clientId}]`;
      const logTo: DestinationStream = { write: labelled(label, stdout, formatLogLine) };
      return runServer({
        name: 'client',
        load: async () => ({ server: clientServer({ logTo }) }),
        env: childEnv(app, env),
        stderr: labelled(label, stderr, (line) => line),
        signals: false,
        // A failure (code 1) ends the process; the end of a shutdown (code 0) ends it once both apps are closed.
        exit: ((code: number) => {
          if (code !== 0) process.exit(code);
          stopped.add(app.clientId);
          if (stopped.size === APPS.length) process.exit(0);
        }) as (code: number) => never,
      });
    }),
  );
  const stop = (signal: string) => void Promise.all(running.map((server) => server.shutdown(signal)));
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return running;
}
