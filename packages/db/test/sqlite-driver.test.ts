import { describe, expect, it } from 'vitest';
import { openSqlite, STATEMENT_CACHE_SIZE } from '../src/sqlite-driver.ts';

describe('openSqlite statement cache', () => {
  it('prepares each SQL text once and answers the same statement again', () => {
    const db = openSqlite(':memory:');
    db.prepare('create table t (id integer primary key, v text)').run([]);
    const insert = db.prepare('insert into t (id, v) values (?, ?)');
    expect(db.prepare('insert into t (id, v) values (?, ?)')).toBe(insert);
    expect(insert.reader).toBe(false);
    insert.run([1, 'a']);
    insert.run([2, 'b']);
    const select = db.prepare('select id, v from t where id > ? order by id');
    expect(select.reader).toBe(true);
    expect(select.all([0])).toEqual([{ id: 1, v: 'a' }, { id: 2, v: 'b' }]);
    // A second run of the cached statement starts from scratch, with its new parameters.
    expect(db.prepare('select id, v from t where id > ? order by id').all([1])).toEqual([{ id: 2, v: 'b' }]);
    db.close();
  });

  it('gives each streaming query a statement of its own', () => {
    const db = openSqlite(':memory:');
    db.prepare('create table t (id integer primary key)').run([]);
    for (const id of [1, 2, 3]) db.prepare('insert into t (id) values (?)').run([id]);
    const sql = 'select id from t order by id';
    const first = db.prepare(sql).iterate([]);
    const second = db.prepare(sql).iterate([]);
    expect(first.next().value).toEqual({ id: 1 });
    expect(second.next().value).toEqual({ id: 1 });
    expect(first.next().value).toEqual({ id: 2 });
    expect(db.prepare(sql).all([])).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(second.next().value).toEqual({ id: 2 });
    db.close();
  });

  it(`keeps at most ${STATEMENT_CACHE_SIZE} statements, dropping the least recently used`, () => {
    const db = openSqlite(':memory:');
    const kept = db.prepare('select 0 as n');
    const evicted = db.prepare('select 1 as n');
    for (let i = 2; i < STATEMENT_CACHE_SIZE; i++) db.prepare(`select ${i} as n`);
    expect(db.prepare('select 0 as n')).toBe(kept); // used again: now the most recent
    db.prepare(`select ${STATEMENT_CACHE_SIZE} as n`); // pushes out "select 1"
    expect(db.prepare('select 0 as n')).toBe(kept);
    const one = db.prepare('select 1 as n');
    expect(one).not.toBe(evicted);
    expect(db.prepare('select 1 as n')).toBe(one);
    expect(one.all([])).toEqual([{ n: 1 }]);
    db.close();
  });
});
