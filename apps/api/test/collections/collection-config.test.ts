import { describe, expect, it } from 'vitest';
import { loadApiDefinition, parseApiDefinition } from '../../src/collections/collection-config.ts';
import { loadConfig } from '../../src/config/config.ts';

const base = () => ({
  versions: [{ version: 1 }, { version: 2 }],
  collections: [{ name: 'movies', fields: { title: { type: 'string' } } }],
});

describe('collection file', () => {
  it('ships movies, customers, cars and users with their scopes', () => {
    const definition = loadApiDefinition(loadConfig({}).collectionsFile);
    expect([...definition.collections.values()].map((c) => [c.name, Object.keys(c.fields), c.readScope, c.writeScope])).toEqual([
      ['movies', ['title'], 'movies:read', 'movies:write'],
      ['customers', ['name'], 'customers:read', 'customers:write'],
      ['cars', ['model'], 'cars:read', 'cars:write'],
      ['users', ['username'], 'users:read', 'users:write'],
    ]);
    expect(definition.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(definition.paging).toEqual({ defaultLimit: 50, maxLimit: 200 });
  });

  it('reads custom scopes, deprecation and paging', () => {
    const definition = parseApiDefinition({
      versions: [{ version: 2 }, { version: 1, deprecated: { since: '2026-01-01T00:00:00Z', sunset: '2026-07-01T00:00:00Z', link: 'https://docs.example/v1' } }],
      paging: { defaultLimit: 2, maxLimit: 3 },
      collections: [{ name: 'books', fields: { isbn: { type: 'string', required: false }, pages: { type: 'integer', minimum: 1 } }, scopes: { read: 'library:read' } }],
    });
    expect(definition.versions[0]).toEqual({
      version: 1,
      deprecated: { since: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2026-07-01T00:00:00Z'), link: 'https://docs.example/v1' },
    });
    expect(definition.collections.get('books')).toMatchObject({ readScope: 'library:read', writeScope: 'books:write' });
    expect(definition.paging).toEqual({ defaultLimit: 2, maxLimit: 3 });
  });

  it.each([
    [{ ...base(), collections: [{ name: 'Movies', fields: { title: { type: 'string' } } }] }, 'at collections.0.name: collection names are lower-case letters, digits and -'],
    [{ ...base(), collections: [{ name: 'v2', fields: { title: { type: 'string' } } }] }, 'at collections.0.name: this name is reserved'],
    [{ ...base(), collections: [{ name: 'movies', fields: { id: { type: 'integer' } } }] }, 'at collections.0.fields: "id" is implicit and may not be declared'],
    [{ ...base(), collections: [{ name: 'movies', fields: {} }] }, 'at collections.0.fields: at least one field is needed'],
    [{ ...base(), collections: [{ name: 'movies', fields: { 'Bad-Name': { type: 'string' } } }] }, 'at collections.0.fields.Bad-Name: field names are lower-case letters, digits and _'],
    [{ ...base(), collections: [{ name: 'movies', fields: { title: { type: 'date' } } }] }, 'at collections.0.fields.title.type:'],
    [{ ...base(), collections: [base().collections[0], base().collections[0]] }, 'at (root): collection names must be unique'],
    [{ ...base(), versions: [{ version: 3 }] }, 'at versions.0.version:'],
    [{ ...base(), versions: [{ version: 1, deprecated: { since: '2026-02-01T00:00:00Z', sunset: '2026-01-01T00:00:00Z' } }] }, 'at versions.0.deprecated: sunset must come after since'],
    [{ ...base(), paging: { defaultLimit: 10, maxLimit: 5 } }, 'at paging: defaultLimit must not exceed maxLimit'],
    [{ ...base(), extra: true }, 'at (root): Unrecognized key'],
  ])('refuses %j', (input, message) => {
    expect(() => parseApiDefinition(input, 'test file')).toThrow(`invalid test file ${message}`);
  });

  it('names a missing or broken file', () => {
    expect(() => loadApiDefinition('/nonexistent/collections.json')).toThrow('cannot read API_COLLECTIONS_FILE /nonexistent/collections.json: ENOENT');
  });
});
