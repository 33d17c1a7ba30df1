/**
 * Checks an item body against its collection's declared fields. Rules:
 * - the body is a JSON object;
 * - `id` is an integer between 1 and 2^53 - 1 (required on create, optional on replace);
 * - every declared field has the declared type and bounds; required fields are present and not null;
 * - fields that are not declared are refused (a typo must not be stored silently);
 * - every problem is reported, one entry per field.
 */
import type { FieldError } from '../errors/api-error.ts';
import type { CollectionSpec, FieldSpec } from './collection-config.ts';

export type ItemValue = string | number | boolean;
export interface Item {
  readonly id: number;
  readonly [field: string]: ItemValue;
}

export const MAX_ID = Number.MAX_SAFE_INTEGER;

export function isValidId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ID;
}

/** Parses a path segment into an item id, or undefined if it is not one. */
export function parseId(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(segment)) return undefined;
  const id = Number(segment);
  return isValidId(id) ? id : undefined;
}

function checkField(spec: FieldSpec, value: unknown): string | undefined {
  switch (spec.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      const length = [...value].length;
      if (spec.minLength !== undefined && length < spec.minLength) return `must be at least ${spec.minLength} characters long`;
      if (spec.maxLength !== undefined && length > spec.maxLength) return `must be at most ${spec.maxLength} characters long`;
      if (spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(value)) return `must match ${spec.pattern}`;
      return undefined;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a${spec.type === 'integer' ? 'n integer' : ' number'}`;
      if (spec.type === 'integer' && !Number.isSafeInteger(value)) return 'must be an integer';
      if (spec.minimum !== undefined && value < spec.minimum) return `must be at least ${spec.minimum}`;
      if (spec.maximum !== undefined && value > spec.maximum) return `must be at most ${spec.maximum}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
  }
}

/**
 * Validates `body` as an item of `collection`. `requireId` is true on create. Returns the item
 * (fields in declaration order) or the list of field errors.
 */
export function validateItem(
  collection: CollectionSpec,
  body: unknown,
  requireId: boolean,
): { ok: true; item: Record<string, ItemValue> & { id?: number } } | { ok: false; errors: FieldError[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object holding one item' }] };
  }
  const input = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  const item: Record<string, ItemValue> & { id?: number } = {};
  if ('id' in input && input.id !== undefined) {
    if (isValidId(input.id)) item.id = input.id;
    else errors.push({ field: 'id', message: `must be an integer between 1 and ${MAX_ID}` });
  } else if (requireId) {
    errors.push({ field: 'id', message: 'is required' });
  }
  for (const [name, spec] of Object.entries(collection.fields)) {
    const value = input[name];
    if (value === undefined || value === null) {
      if (spec.required) errors.push({ field: name, message: 'is required' });
      continue;
    }
    const problem = checkField(spec, value);
    if (problem) errors.push({ field: name, message: problem });
    else item[name] = value as ItemValue;
  }
  for (const name of Object.keys(input)) {
    if (name !== 'id' && !Object.hasOwn(collection.fields, name)) errors.push({ field: name, message: 'is not a field of this collection' });
  }
  return errors.length ? { ok: false, errors } : { ok: true, item };
}
