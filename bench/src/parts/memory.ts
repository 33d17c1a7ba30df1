/**
 * The memory part (bench/README.md, "Memory"): each app's resident set size (RSS, from /proc)
 * idle, read before any load (context.ts), with what it grew to after the loads of the run and
 * its V8 heap in use as the note. Rules:
 * - the budget is on idle memory: started, ready, left alone for 3 s;
 * - the client gets its own short load (its landing page) before the second reading.
 */
import type { Figure } from '../budgets.ts';
import { rssOf, type Context } from '../context.ts';
import { httpRequest, repeat, runLoad } from '../load.ts';
import { metricsUrl, type Server } from '../stack.ts';

export const idleRssFigure = (server: string) => `idle RSS ${server}`;

/** The V8 heap in use, from the process's own metrics (prom-client's nodejs_heap_size_used_bytes), MB. */
async function heapUsedMb(server: Server): Promise<number | undefined> {
  const url = metricsUrl(server);
  if (!url) return undefined;
  const text = await (await fetch(url)).text();
  const value = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text)?.[1];
  return value === undefined ? undefined : Number(value) / 1048576;
}

export async function memory(context: Context): Promise<Figure[]> {
  const { client, servers, idleRss } = await context.stacks();
  await runLoad({ port: client.port, connections: 8, durationMs: context.settings.seconds * 1000, script: repeat(httpRequest(client.port, 'GET', '/', { Accept: 'text/html' })) });
  const loaded = rssOf(servers);
  const figures: Figure[] = [];
  for (const [name, server] of Object.entries(servers)) {
    const heap = await heapUsedMb(server);
    figures.push({ name: idleRssFigure(name), value: idleRss[name]!, unit: 'MB', note: `after the run's load ${loaded[name]!.toFixed(1)} MB${heap === undefined ? '' : `, V8 heap in use ${heap.toFixed(1)} MB`}` });
  }
  return figures;
}
