/**
 * The API's collection file: which collections exist, the fields of their items, the scopes
 * guarding them, the versions served and the paging bounds. Rules:
 * - a collection name is a lower-case plural noun (`^[a-z][a-z0-9-]*$`), unique, and not a
 *   version segment (`v<n>`) or `openapi.json`;
 * - field names are `^[a-z][a-z0-9_]*$` (valid JSON keys, XML element names and SQL-free), `id` is
 *   implicit (integer, sent by the client) and may not be declared;
 * - scopes default to `<name>:read` and `<name>:write`;
 * - versions come from the set this code implements (1, 2); a deprecated version names its
 *   deprecation date and may name a sunset date (after the deprecation) and a documentation link;
 * - paging: 1 ≤ defaultLimit ≤ maxLimit ≤ 1000.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { readScope, writeScope } from '@gatehouse/contracts';
import { ConfigError } from '../config/config.ts';

/** API versions whose shapes this code implements. */
export const IMPLEMENTED_VERSIONS = [1, 2] as const;
export type ApiVersion = (typeof IMPLEMENTED_VERSIONS)[number];

const fieldName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'field names are lower-case letters, digits and _');

const StringField = z.strictObject({
  type: z.literal('string'),
  required: z.boolean().default(true),
  minLength: z.number().int().nonnegative().optional(),
  maxLength: z.number().int().positive().optional(),
  pattern: z
    .string()
    .refine((p) => {
      try {
        new RegExp(p, 'u');
        return true;
      } catch {
        return false;
      }
    }, 'not a valid regular expression')
    .optional(),
  description: z.string().optional(),
});
const NumericField = z.strictObject({
  type: z.enum(['integer', 'number']),
  required: z.boolean().default(true),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  description: z.string().optional(),
});
const BooleanField = z.strictObject({
  type: z.literal('boolean'),
  required: z.boolean().default(true),
  description: z.string().optional(),
});
const Field = z.discriminatedUnion('type', [StringField, NumericField, BooleanField]);
export type FieldSpec = z.infer<typeof Field>;

const isoDate = z.iso.datetime({ offset: true }).transform((v) => new Date(v));

const Version = z.strictObject({
  version: z.union(IMPLEMENTED_VERSIONS.map((v) => z.literal(v)) as [z.ZodLiteral<1>, z.ZodLiteral<2>]),
  deprecated: z
    .strictObject({
      since: isoDate,
      sunset: isoDate.optional(),
      link: z.url().optional(),
    })
    .refine((d) => !d.sunset || d.sunset.getTime() > d.since.getTime(), 'sunset must come after since')
    .optional(),
});

const Collection = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'collection names are lower-case letters, digits and -')
    .refine((n) => !/^v\d+$/.test(n) && n !== 'openapi.json', 'this name is reserved'),
  description: z.string().optional(),
  fields: z
    .record(fieldName, Field)
    .refine((f) => !('id' in f), '"id" is implicit and may not be declared')
    .refine((f) => Object.keys(f).length > 0, 'at least one field is needed'),
  scopes: z.strictObject({ read: z.string().min(1), write: z.string().min(1) }).partial().optional(),
});

const CollectionFile = z
  .strictObject({
    versions: z.array(Version).nonempty(),
    paging: z
      .strictObject({
        defaultLimit: z.number().int().min(1).max(1000),
        maxLimit: z.number().int().min(1).max(1000),
      })
      .refine((p) => p.defaultLimit <= p.maxLimit, 'defaultLimit must not exceed maxLimit')
      .default({ defaultLimit: 50, maxLimit: 200 }),
    collections: z.array(Collection).nonempty(),
  })
  .refine((f) => new Set(f.collections.map((c) => c.name)).size === f.collections.length, 'collection names must be unique')
  .refine((f) => new Set(f.versions.map((v) => v.version)).size === f.versions.length, 'versions must be unique');

export interface Deprecation {
  readonly since: Date;
  readonly sunset: Date | undefined;
  readonly link: string | undefined;
}

export interface VersionSpec {
  readonly version: ApiVersion;
  readonly deprecated: Deprecation | undefined;
}

export interface CollectionSpec {
  readonly name: string;
  readonly description: string | undefined;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  readonly readScope: string;
  readonly writeScope: string;
}

export interface ApiDefinition {
  readonly versions: readonly VersionSpec[];
  readonly paging: { readonly defaultLimit: number; readonly maxLimit: number };
  readonly collections: ReadonlyMap<string, CollectionSpec>;
}

/** Validates a parsed collection file. Throws {@link ConfigError} naming the first bad setting. */
export function parseApiDefinition(input: unknown, source = 'collection file'): ApiDefinition {
  const parsed = CollectionFile.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(root)';
    // A bad record key reports "Invalid key in record"; the rule it broke is one level down.
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    throw new ConfigError(`invalid ${source} at ${where}: ${message}`);
  }
  const f = parsed.data;
  const collections = new Map<string, CollectionSpec>();
  for (const c of f.collections) {
    collections.set(
      c.name,
      Object.freeze({
        name: c.name,
        description: c.description,
        fields: Object.freeze({ ...c.fields }),
        readScope: c.scopes?.read ?? readScope(c.name),
        writeScope: c.scopes?.write ?? writeScope(c.name),
      }),
    );
  }
  return Object.freeze({
    versions: Object.freeze(
      [...f.versions]
        .sort((a, b) => a.version - b.version)
        .map((v) =>
          Object.freeze({
            version: v.version,
            deprecated: v.deprecated
              ? Object.freeze({ since: v.deprecated.since, sunset: v.deprecated.sunset, link: v.deprecated.link })
              : undefined,
          }),
        ),
    ),
    paging: Object.freeze({ ...f.paging }),
    collections,
  });
}

/** Reads and validates the collection file at `path`. */
export function loadApiDefinition(path: string): ApiDefinition {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read API_COLLECTIONS_FILE ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`API_COLLECTIONS_FILE ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseApiDefinition(json, `collection file ${path}`);
}
