import { describe, expect, it } from 'vitest';
import { parseApiDefinition } from '../../src/collections/collection-config.ts';
import { parseId, validateItem } from '../../src/collections/item-validator.ts';

const books = parseApiDefinition({
  versions: [{ version: 1 }],
  collections: [
    {
      name: 'books',
      fields: {
        title: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
        pages: { type: 'integer', minimum: 1, maximum: 10 },
        price: { type: 'number', required: false },
        ebook: { type: 'boolean', required: false },
      },
    },
  ],
}).collections.get('books')!;

describe('validateItem', () => {
  it('accepts a good item, in declaration order', () => {
    expect(validateItem(books, { pages: 3, title: 'abc', id: 7, ebook: false }, true)).toEqual({ ok: true, item: { id: 7, title: 'abc', pages: 3, ebook: false } });
    expect(validateItem(books, { title: 'abc', pages: 3, price: null }, false)).toEqual({ ok: true, item: { title: 'abc', pages: 3 } });
  });

  it('refuses an id beyond 9007199254740991, in a body and in a path', () => {
    const idError = { field: 'id', message: 'must be an integer between 1 and 9007199254740991' };
    expect(validateItem(books, { id: 9_007_199_254_740_991, title: 'abc', pages: 3 }, true)).toEqual({ ok: true, item: { id: 9_007_199_254_740_991, title: 'abc', pages: 3 } });
    expect(validateItem(books, { id: 9_007_199_254_740_992, title: 'abc', pages: 3 }, true)).toEqual({ ok: false, errors: [idError] });
    expect(validateItem(books, { id: 1e300, title: 'abc', pages: 3 }, true)).toEqual({ ok: false, errors: [idError] });
    expect(validateItem(books, { id: -1, title: 'abc', pages: 3 }, true)).toEqual({ ok: false, errors: [idError] });
    expect(parseId('9007199254740991')).toBe(9_007_199_254_740_991);
    expect(parseId('9007199254740992')).toBeUndefined();
    expect(parseId('9999999999999999')).toBeUndefined();
  });

  it('reports every bad field', () => {
    expect(validateItem(books, { id: 0, title: 'ABC', pages: 2.5, price: '1', ebook: 'yes', x: 1 }, true)).toEqual({
      ok: false,
      errors: [
        { field: 'id', message: 'must be an integer between 1 and 9007199254740991' },
        { field: 'title', message: 'must match ^[a-z]+$' },
        { field: 'pages', message: 'must be an integer' },
        { field: 'price', message: 'must be a number' },
        { field: 'ebook', message: 'must be true or false' },
        { field: 'x', message: 'is not a field of this collection' },
      ],
    });
    expect(validateItem(books, { title: 'a', pages: 11 }, true)).toEqual({
      ok: false,
      errors: [
        { field: 'id', message: 'is required' },
        { field: 'title', message: 'must be at least 2 characters long' },
        { field: 'pages', message: 'must be at most 10' },
      ],
    });
    expect(validateItem(books, 'x', true)).toEqual({ ok: false, errors: [{ field: '(body)', message: 'must be a JSON object holding one item' }] });
  });

  it('counts characters, not UTF-16 units', () => {
    const emoji = parseApiDefinition({ versions: [{ version: 1 }], collections: [{ name: 'e', fields: { s: { type: 'string', maxLength: 2 } } }] }).collections.get('e')!;
    expect(validateItem(emoji, { id: 1, s: '😀😀' }, true).ok).toBe(true);
    expect(validateItem(emoji, { id: 1, s: '😀😀😀' }, true)).toEqual({ ok: false, errors: [{ field: 's', message: 'must be at most 2 characters long' }] });
  });
});

describe('parseId', () => {
  it.each([
    ['1', 1],
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', undefined],
    ['0', undefined],
    ['01', undefined],
    ['-1', undefined],
    ['1e3', undefined],
    ['abc', undefined],
    ['', undefined],
  ])('%j → %s', (segment, id) => {
    expect(parseId(segment)).toBe(id);
  });
});
