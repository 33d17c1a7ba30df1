/**
 * The invariants every answer must keep, whatever was sent:
 * - the status is below 500 (bad input is a 4xx, never a server error);
 * - the body carries no stack trace or internal detail: no `    at f (file:1:2)` frames, no
 *   `.ts:<line>` / `.js:<line>` positions, no `node_modules`, no absolute path of the checkout, no
 *   `SomethingError:` message;
 * - a 4xx answer has one of the app's error shapes (shapes.ts);
 * - headers carry no CR/LF injected from input (the parser guarantees it; checked for safety).
 */
import type { ShapeCheck } from './shapes.ts';
import type { FuzzRequest, FuzzResponse } from './send-raw.ts';

const LEAKS: readonly [RegExp, string][] = [
  [/^\s+at .+:\d+:\d+\)?$/m, 'a stack frame'],
  [/\s{4}at [\w.<>[\] ]+ \(/, 'a stack frame'],
  [/\.(?:m?[jt]s|cjs):\d+/, 'a source position'],
  [/node_modules/, 'a node_modules path'],
  [/\b[A-Z][A-Za-z]*Error: /, 'an error message'],
  [/\b(?:SQLITE_[A-Z]+|ECONNREFUSED|ERR_[A-Z_]{4,})\b/, 'an internal error code'],
];

/** Internal paths that must never reach a client: the checkout and the process's working directory. */
function internalPaths(): string[] {
  const paths = new Set<string>([process.cwd()]);
  const root = process.cwd().replace(/\/(?:apps|packages)\/[^/]+$/, '');
  paths.add(root);
  return [...paths].filter((p) => p.length > 4);
}

/** Every broken invariant of one answer (empty when it is fine). */
export function checkResponse(request: FuzzRequest, response: FuzzResponse, errorShape: ShapeCheck): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`status ${response.status}`);
  const text = response.text;
  for (const [pattern, what] of LEAKS) if (pattern.test(text)) problems.push(`the body contains ${what} (${pattern.exec(text)![0].slice(0, 80)})`);
  for (const path of internalPaths()) if (text.includes(path)) problems.push(`the body contains the internal path ${path}`);
  if (response.status >= 400 && response.status < 500) {
    const reason = errorShape(response, request);
    if (reason !== undefined) problems.push(`${response.status} in no contract shape: ${reason}`);
  }
  for (const [name, values] of response.headers) {
    for (const value of values) if (/[\r\n\0]/.test(value)) problems.push(`header ${name} carries a control character`);
  }
  return problems;
}
