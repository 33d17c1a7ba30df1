/**
 * Development log formatting: turns one pino JSON line into `12:04:05 INFO  message key=value …`
 * so `pnpm dev` shows one readable stream. Lines that are not pino JSON pass through unchanged.
 * Production keeps the JSON lines (no formatter runs there).
 */
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'app', 'v']);

function renderValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** Formats one line of pino output for a terminal; anything else is returned as it is. */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof entry.level !== 'number' || typeof entry.time !== 'number') return line;
  const time = new Date(entry.time).toISOString().slice(11, 19);
  const level = (LEVELS[entry.level] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key, value]) => !HIDDEN.has(key) && key !== 'err' && value !== undefined)
    .map(([key, value]) => `${key}=${renderValue(value)}`);
  const err = entry.err as { stack?: string; message?: string } | undefined;
  const stack = err ? `\n${err.stack ?? err.message ?? ''}` : '';
  return `${time} ${level} ${String(entry.msg ?? '')}${fields.length ? `  ${fields.join(' ')}` : ''}${stack}`;
}
