/**
 * A strict, tiny argument parser over node:util parseArgs. Rules:
 * - unknown options, missing option values and values given to flags are usage errors;
 * - positionals are named, required and counted exactly;
 * - every error is one line naming the offending option or argument.
 */
import { parseArgs } from 'node:util';

export class UsageError extends Error {
  readonly code = 'usage';
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

export interface CommandSpec<O extends Record<string, OptionSpec>> {
  /** e.g. `user add`, used in messages. */
  command: string;
  positionals: readonly string[];
  options: O;
}

type Values<O extends Record<string, OptionSpec>> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K]['multiple'] extends true ? string[] : string;
};

export function parseCommand<O extends Record<string, OptionSpec>>(
  args: readonly string[],
  spec: CommandSpec<O>,
): { positionals: string[]; values: Values<O> } {
  const { tokens } = parseArgs({ args: [...args], options: spec.options, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, string | string[] | boolean> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (!option) throw new UsageError(`${spec.command}: unknown option ${token.rawName}`);
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${spec.command}: option ${token.rawName} takes no value`);
      values[token.name] = true;
      continue;
    }
    if (token.value === undefined || token.value === '') throw new UsageError(`${spec.command}: option ${token.rawName} needs a value`);
    if (option.multiple) values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value];
    else if (token.name in values) throw new UsageError(`${spec.command}: option ${token.rawName} given twice`);
    else values[token.name] = token.value;
  }
  if (positionals.length < spec.positionals.length) {
    throw new UsageError(`${spec.command}: missing <${spec.positionals[positionals.length]}>`);
  }
  if (positionals.length > spec.positionals.length) {
    throw new UsageError(`${spec.command}: unexpected argument "${positionals[spec.positionals.length]}"`);
  }
  return { positionals, values: values as Values<O> };
}

/** The value of a required string option, or a usage error naming it. */
export function required(value: string | undefined, command: string, flag: string): string {
  if (value === undefined) throw new UsageError(`${command}: missing required option --${flag}`);
  return value;
}
