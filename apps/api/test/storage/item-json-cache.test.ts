/**
 * The item JSON cache (src/storage/item-json-cache.ts): answers kept only while the database's
 * version holds, nothing kept for a missing item, and both bounds.
 */
import { describe, expect, it } from 'vitest';
import { itemJsonCache } from '../../src/storage/item-json-cache.ts';

function counted(values: Record<string, string | undefined>) {
  const reads: string[] = [];
  const read = (key: string) => () => {
    reads.push(key);
    return values[key];
  };
  return { reads, read };
}

describe('item JSON cache', () => {
  it('reuses an answer while the version holds and reads again once it moves', () => {
    let version = 1;
    const cache = itemJsonCache(() => version);
    const values: Record<string, string | undefined> = { a: '{"id":1}' };
    const { reads, read } = counted(values);
    expect(cache.get('movies', 1, read('a'))).toBe('{"id":1}');
    expect(cache.get('movies', 1, read('a'))).toBe('{"id":1}');
    expect(reads).toEqual(['a']);
    // The same id in another collection is another item.
    values.b = '{"id":1,"model":"Ka"}';
    expect(cache.get('cars', 1, read('b'))).toBe('{"id":1,"model":"Ka"}');
    expect(reads).toEqual(['a', 'b']);

    values.a = '{"id":1,"title":"changed"}';
    version = 2;
    expect(cache.get('movies', 1, read('a'))).toBe('{"id":1,"title":"changed"}');
    expect(cache.get('cars', 1, read('b'))).toBe('{"id":1,"model":"Ka"}');
    expect(reads).toEqual(['a', 'b', 'a', 'b']);
  });

  it('keeps nothing for a missing item', () => {
    const cache = itemJsonCache(() => 1);
    const { reads, read } = counted({});
    expect(cache.get('movies', 9, read('none'))).toBeUndefined();
    expect(cache.get('movies', 9, read('none'))).toBeUndefined();
    expect(reads).toEqual(['none', 'none']);
  });

  it('holds at most maxEntries items and maxChars characters, dropping the oldest first', () => {
    const cache = itemJsonCache(() => 1, { maxEntries: 2, maxChars: 12 });
    const { reads, read } = counted({ one: '{"id":1}', two: '{"id":2}', big: `{"id":3,"t":"${'x'.repeat(20)}"}` });
    cache.get('m', 1, read('one')); // 8 characters
    cache.get('m', 2, read('two')); // 16 in all: past maxChars, so item 1 goes
    expect(reads).toEqual(['one', 'two']);
    cache.get('m', 2, read('two'));
    expect(reads).toEqual(['one', 'two']);
    cache.get('m', 1, read('one'));
    expect(reads).toEqual(['one', 'two', 'one']);
    // Larger than the whole cache: answered, never kept, and nothing else is pushed out for it.
    expect(cache.get('m', 3, read('big'))).toBe(`{"id":3,"t":"${'x'.repeat(20)}"}`);
    cache.get('m', 3, read('big'));
    cache.get('m', 1, read('one'));
    expect(reads).toEqual(['one', 'two', 'one', 'big', 'big']);

    const byCount = itemJsonCache(() => 1, { maxEntries: 2, maxChars: 1_000 });
    const counter = counted({ one: '1', two: '2', three: '3' });
    for (const [id, key] of [[1, 'one'], [2, 'two'], [3, 'three'], [2, 'two'], [3, 'three'], [1, 'one']] as const) byCount.get('m', id, counter.read(key));
    expect(counter.reads).toEqual(['one', 'two', 'three', 'one']);
  });
});
