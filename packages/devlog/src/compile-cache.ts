/**
 * The dev servers' compile cache: Node's cache of the code V8 compiled and of the TypeScript with
 * its types stripped, keyed by each file's content. Rules:
 * - it is NODE_COMPILE_CACHE when that is set, else `node_modules/.cache/node-compile-cache`
 *   under the repository root (devCompileCacheDir); scripts/dev.ts hands it to every app it starts;
 * - compileModules fills it ahead of a start: it imports (evaluates) each group's modules in this
 *   process with the cache on, then writes the cache out; a group whose modules fail to load is
 *   reported with its first error line, never thrown, and the next groups still load; the cache is
 *   on for the rest of the process, so this is for a process that does nothing else
 *   (scripts/compile-dev.ts, at the end of `pnpm install`; bench/README.md, "Start-up").
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export function devCompileCacheDir(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.NODE_COMPILE_CACHE || join(root, 'node_modules', '.cache', 'node-compile-cache');
}

export interface CompiledModules {
  /** The groups whose every module loaded, in the order given. */
  readonly compiled: readonly string[];
  /** The groups that stopped at a module, with that failure's first line. */
  readonly failed: readonly { readonly group: string; readonly message: string }[];
  readonly ms: number;
}

/** Imports each group's modules (absolute paths, in order) into the compile cache in `dir`. */
export async function compileModules(dir: string, groups: Readonly<Record<string, readonly string[]>>): Promise<CompiledModules> {
  const started = performance.now();
  enableCompileCache(dir);
  const compiled: string[] = [];
  const failed: { group: string; message: string }[] = [];
  for (const [group, modules] of Object.entries(groups)) {
    try {
      for (const module of modules) await import(pathToFileURL(module).href);
      compiled.push(group);
    } catch (error) {
      failed.push({ group, message: (error instanceof Error ? error.message : String(error)).split('\n')[0]! });
    }
  }
  flushCompileCache();
  return { compiled, failed, ms: performance.now() - started };
}
