/**
 * What the parts of a run share (parts.ts). Rules:
 * - the production stacks are built and started once, by the first part that needs them, and
 *   each process's idle RSS is read then (started, ready, then left alone for 3 s), before any load;
 * - a baseline, a floor or the refresh chains are made once, on first use, and shared by the parts.
 */
import type { Settings } from './settings.ts';
import { buildApps, rssMb, type EngineStack, type Processes, type Server } from './stack.ts';

export interface Stacks {
  readonly sqlite: EngineStack;
  readonly postgres: EngineStack;
  readonly client: Server;
  /** Every Gatehouse process, by the name the memory figures use. */
  readonly servers: Readonly<Record<string, Server>>;
  /** RSS of each server before any load, MB. */
  readonly idleRss: Readonly<Record<string, number>>;
}

export interface Context {
  readonly settings: Settings;
  readonly processes: Processes;
  readonly log: (line: string) => void;
  stacks(): Promise<Stacks>;
  shared<T>(key: string, make: () => Promise<T>): Promise<T>;
}

/** RSS of each server now, MB. */
export function rssOf(servers: Readonly<Record<string, Server>>): Record<string, number> {
  return Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, rssMb(s.child.pid!)]));
}

export function createContext(settings: Settings, processes: Processes, log: (line: string) => void): Context {
  const made = new Map<string, Promise<unknown>>();
  const shared = <T>(key: string, make: () => Promise<T>): Promise<T> => {
    if (!made.has(key)) made.set(key, make());
    return made.get(key) as Promise<T>;
  };
  const stacks = () =>
    shared('stacks', async (): Promise<Stacks> => {
      const started = performance.now();
      if (settings.build) buildApps();
      const sqlite = await processes.startEngine('sqlite', settings.tokenConnections);
      const postgres = await processes.startEngine('postgres', settings.tokenConnections);
      const client = await processes.startClient(sqlite);
      const servers = { 'auth (sqlite)': sqlite.auth, 'api (sqlite)': sqlite.api, client, 'auth (postgres)': postgres.auth, 'api (postgres)': postgres.api };
      log(`  production stacks ${settings.build ? 'built and ' : ''}started in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return { sqlite, postgres, client, servers, idleRss: rssOf(servers) };
    });
  return { settings, processes, log, stacks, shared };
}
