/**
 * Which app `dev` scripts scripts/dev.ts runs under its own watcher (watched-process.ts): exactly
 * `node`, then only `--watch-path=<folder>` (one or more), `--watch-preserve-output` and other
 * plain `--flag[=value]` options, then one entry file. Anything else (a pipe, a variable, quotes,
 * another command) is not this form and runs through the shell as written.
 */
import { resolve } from 'node:path';

export interface WatchedNodeScript {
  /** The watched folders, absolute (resolved from the app's folder). */
  readonly watch: string[];
  /** Node's arguments for the server itself: the other flags, then the entry. */
  readonly args: string[];
}

/** The script as folders to watch and the server's arguments; undefined when it is not of that form. */
export function watchedNodeScript(script: string, dir: string): WatchedNodeScript | undefined {
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) return undefined;
  const watch: string[] = [];
  const args: string[] = [];
  for (const word of words.slice(1, -1)) {
    const path = /^--watch-path=([\w./@+-]+)$/.exec(word)?.[1];
    if (path !== undefined) watch.push(resolve(dir, path));
    else if (word === '--watch-preserve-output') continue;
    else if (word !== '--watch' && /^--[a-z][\w-]*(=[\w./:,@+-]+)?$/.test(word)) args.push(word);
    else return undefined;
  }
  const entry = words.at(-1)!;
  if (watch.length === 0 || !/^[\w./-]+$/.test(entry) || entry.startsWith('-')) return undefined;
  return { watch, args: [...args, entry] };
}
