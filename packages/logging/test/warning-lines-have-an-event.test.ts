/**
 * Every warn, error and fatal line of every app and package names its `event` (the stable name an
 * operator alerts and searches on, as audit lines do): a scan of the sources for logger calls
 * whose first argument is not an object literal with an `event` member.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CALL = /\b(?:logger|log|deps\.logger|options\.logger|this\.logger)\.(warn|error|fatal)\(\s*/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The first argument of the call starting at `at` when it is an object literal, else undefined. */
function objectArgument(text: string, at: number): string | undefined {
  if (text[at] !== '{') return undefined;
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(at, i + 1);
  }
  return undefined;
}

/** `file:line` of each warn/error/fatal call without an `event` member in its first argument. */
function linesWithoutEvent(files: readonly string[]): string[] {
  const missing: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(CALL)) {
      const argument = objectArgument(text, match.index + match[0].length);
      // The first level of the object literal: `event:` or the shorthand `event,`.
      if (argument && /[{,]\s*event\s*[:,}]/.test(argument)) continue;
      missing.push(`${relative(ROOT, file)}:${text.slice(0, match.index).split('\n').length}`);
    }
  }
  return missing;
}

describe('warn, error and fatal lines', () => {
  const roots = ['apps', 'packages'].flatMap((top) => readdirSync(join(ROOT, top)).map((name) => join(ROOT, top, name, 'src')));
  const files = roots.filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()).flatMap(sources);

  it('scans the sources of every app and package', () => {
    expect(files.some((f) => f.endsWith(join('apps', 'auth', 'src', 'app.ts')))).toBe(true);
    expect(files.length).toBeGreaterThan(200);
  });

  it('each name an event', () => {
    expect(linesWithoutEvent(files)).toEqual([]);
  });
});
