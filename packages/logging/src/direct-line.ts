/**
 * A line of plain fields written straight to a logger's destination: the JSON pino itself
 * writes for `logger[level](fields, message)` (level, time, the logger's bindings, the fields in
 * their order, `msg`), without pino's general path. Rules:
 * - only for loggers made by createLogger (their formatters and destination are known), and
 *   only when the destination does not ask pino for metadata; otherwise there is no direct line
 *   and the caller logs as usual;
 * - the level is checked on every line, so a level changed at run time still applies;
 * - fields named on the redaction list (redaction.ts) are left out, as pino's formatter removes
 *   them; a field that is not a string, number or boolean (an object, an error) sends the whole
 *   line through pino, so its redaction and serializers apply;
 * - undefined fields are left out, a number that is not finite is written `null`, as pino does.
 * Why: pino's general path (the formatter's copy check, its serializer lookups per field) is a
 * large share of the API's item read (bench/README.md, "API read").
 */
import { symbols, type Logger } from 'pino';
import { SECRET_FIELD_NAMES } from './redaction.ts';

export type DirectLevel = 'debug' | 'info' | 'error';
export type DirectLine = (level: DirectLevel, fields: Readonly<Record<string, unknown>>, message: string) => void;

const LEVEL_VALUES: Readonly<Record<DirectLevel, number>> = { debug: 20, info: 30, error: 50 };
const secret = new Set<string>(SECRET_FIELD_NAMES);

/**
 * Where a logger made by createLogger keeps its direct writer: an own, non-enumerable property
 * under this registered symbol, so that @gatehouse/http finds it without importing this package
 * (a built package may not load another's sources; scripts/link-built-packages.ts). A child
 * logger inherits its parent's through the prototype; only an own one is used, so a logger that
 * was not made here never writes with another logger's bindings.
 */
const DIRECT_LINE = Symbol.for('gatehouse.logging.directLine');

/** Gives a logger made by createLogger (its destination and bindings set) its direct writer. */
export function allowDirectLines(logger: object): void {
  Object.defineProperty(logger, DIRECT_LINE, { enumerable: false, value: makeWriter(logger) ?? undefined });
}

type PinoInternals = Record<symbol, unknown> & { levelVal: number };

/** The direct writer of `logger`, or undefined when its lines must go through pino. */
export function directLine(logger: object): DirectLine | undefined {
  return Object.hasOwn(logger, DIRECT_LINE) ? ((logger as Record<symbol, DirectLine | undefined>)[DIRECT_LINE] ?? undefined) : undefined;
}

function makeWriter(logger: object): DirectLine | null {
  const internals = logger as PinoInternals;
  const stream = internals[symbols.streamSym] as { write(line: string): void } & Record<symbol, unknown>;
  if (stream[symbols.needsMetadataGsym] === true) return null;
  const time = internals[symbols.timeSym] as () => string;
  const pino = logger as Logger;
  return (level, fields, message) => {
    const value = LEVEL_VALUES[level];
    if (value < internals.levelVal) return;
    let line = `{"level":${value}${time()}${internals[symbols.chindingsSym] as string}`;
    for (const key in fields) {
      const field = fields[key];
      if (field === undefined || secret.has(key)) continue;
      switch (typeof field) {
        case 'string':
          line += `,${JSON.stringify(key)}:${JSON.stringify(field)}`;
          break;
        case 'number':
          line += `,${JSON.stringify(key)}:${Number.isFinite(field) ? field : 'null'}`;
          break;
        case 'boolean':
          line += `,${JSON.stringify(key)}:${field}`;
          break;
        default:
          pino[level](fields, message);
          return;
      }
    }
    stream.write(`${line},"msg":${JSON.stringify(message)}}\n`);
  };
}
