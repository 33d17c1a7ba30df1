import { describe, expect, it } from 'vitest';
import { createRequestRows } from '../../src/oidc/request-rows.ts';

interface Kinds {
  account: { id: string } | undefined;
  Grant: { payload: string } | undefined;
  Session: { payload: string } | undefined;
  policies: string[];
}

describe('rows kept for one request, by typed key', () => {
  it('answers one lookup of the request that read it, never another request nor code outside one', () => {
    let current: object | undefined = {};
    const first = current;
    const rows = createRequestRows<Kinds>(() => current);
    expect(rows.active()).toBe(true);
    rows.put('account', 'a', { id: 'a' });
    rows.put('account', 'gone', undefined);
    current = {};
    expect(rows.take('account', 'a')).toBeUndefined();
    current = undefined;
    expect(rows.active()).toBe(false);
    expect(rows.take('account', 'a')).toBeUndefined();
    rows.put('account', 'b', { id: 'b' });
    current = first;
    expect(rows.take('account', 'b')).toBeUndefined();
    // The same id under another kind is another row.
    expect(rows.take('Grant', 'a')).toBeUndefined();
    expect(rows.take('account', 'a')).toEqual({ value: { id: 'a' } });
    expect(rows.take('account', 'a')).toBeUndefined();
    // Known absent: answered once as not found.
    expect(rows.take('account', 'gone')).toEqual({ value: undefined });
    expect(rows.take('account', 'gone')).toBeUndefined();
  });

  it('forgets the kinds it is told to, and only those', () => {
    const request = {};
    const rows = createRequestRows<Kinds>(() => request);
    rows.put('Grant', 'g', { payload: '{}' });
    rows.put('Session', 'u', { payload: '{}' });
    rows.put('policies', '', []);
    rows.forget(['Grant', 'Session']);
    expect(rows.take('Grant', 'g')).toBeUndefined();
    expect(rows.take('Session', 'u')).toBeUndefined();
    expect(rows.take('policies', '')).toEqual({ value: [] });
  });
});
