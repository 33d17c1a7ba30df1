/**
 * Applies the redaction paths (redaction.ts) to one log line, removing the fields they name.
 * Rules:
 * - a path is dot-separated keys (`a.b`, `a["b-c"]`), `*` standing for any key; it matches at the
 *   top level of the object passed to the logger, and so at every depth it spells out;
 * - the caller's objects are never changed: an object that loses a field is copied, one that
 *   loses none is passed on as it is;
 * - an Error met on the way is first turned into the plain object pino would write
 *   (pino.stdSerializers.err: type, message, stack, its own fields), so `err.code` or
 *   `err.token` are removed like any other field;
 * - the work is proportional to the fields of the line, not to the number of paths: the paths
 *   are compiled once into a tree (walking every path for every line, as pino's own `redact`
 *   does, is the largest cost of a request line; bench/README.md, "API read").
 */
import { stdSerializers } from 'pino';

interface PathNode {
  /** Removed when reached. */
  remove: boolean;
  children: Map<string, PathNode>;
}

const ANY = '*';

function parsePath(path: string): string[] {
  const keys: string[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\["([^"]+)"\]/g)) keys.push(match[1] ?? match[2]!);
  return keys;
}

/** The paths as a tree of keys; `*` is kept as a key of its own and matched with every key. */
function compilePaths(paths: readonly string[]): PathNode {
  const root: PathNode = { remove: false, children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const key of parsePath(path)) {
      let child = node.children.get(key);
      if (!child) node.children.set(key, (child = { remove: false, children: new Map() }));
      node = child;
    }
    node.remove = true;
  }
  return root;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** `value` without the fields the nodes name; the same value when nothing goes. */
function strip(value: Record<string, unknown>, nodes: readonly PathNode[]): Record<string, unknown> {
  const source: Record<string, unknown> = value instanceof Error ? (stdSerializers.err(value) as unknown as Record<string, unknown>) : value;
  let copy: Record<string, unknown> | undefined = source === value ? undefined : source;
  for (const key of Object.keys(source)) {
    // Whether a path ends at this key (the key itself or `*`); no allocation for a plain field.
    let remove = false;
    for (const node of nodes) if (node.children.get(key)?.remove || node.children.get(ANY)?.remove) remove = true;
    if (remove) {
      copy ??= { ...source };
      delete copy[key];
      continue;
    }
    const field = source[key];
    if (!isObject(field) || Array.isArray(field)) continue;
    const deeper: PathNode[] = [];
    for (const node of nodes) {
      const named = node.children.get(key);
      const any = node.children.get(ANY);
      if (named) deeper.push(named);
      if (any) deeper.push(any);
    }
    if (deeper.length === 0) continue;
    const stripped = strip(field, deeper);
    if (stripped !== field) (copy ??= { ...source })[key] = stripped;
  }
  return copy ?? source;
}

/** A function removing the fields `paths` name from a log line's object. */
export function secretRemover(paths: readonly string[]): (line: Record<string, unknown>) => Record<string, unknown> {
  const root = [compilePaths(paths)];
  return (line) => strip(line, root);
}
