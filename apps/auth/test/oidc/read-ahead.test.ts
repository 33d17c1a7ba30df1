import { describe, expect, it } from 'vitest';
import { createReadAhead, NO_READ_AHEAD } from '../../src/oidc/read-ahead.ts';

describe('rows read ahead for one request', () => {
  it('answers one lookup of the request that read it, never another request nor code outside one', () => {
    let current: object | undefined = {};
    const first = current;
    const ahead = createReadAhead(() => current);
    expect(ahead.active()).toBe(true);
    ahead.put('accounts:a', { id: 'a' });
    ahead.put('accounts:gone', undefined);
    current = {};
    expect(ahead.take('accounts:a')).toBeUndefined();
    current = undefined;
    expect(ahead.active()).toBe(false);
    expect(ahead.take('accounts:a')).toBeUndefined();
    ahead.put('accounts:b', { id: 'b' });
    current = first;
    expect(ahead.take('accounts:b')).toBeUndefined();
    expect(ahead.take('accounts:a')).toEqual({ value: { id: 'a' } });
    expect(ahead.take('accounts:a')).toBeUndefined();
    // Known absent: answered once as not found.
    expect(ahead.take('accounts:gone')).toEqual({ value: undefined });
    expect(ahead.take('accounts:gone')).toBeUndefined();
  });

  it('forgets the rows under a prefix only', () => {
    const request = {};
    const ahead = createReadAhead(() => request);
    ahead.put('oidc:Grant:id:g', { payload: '{}' });
    ahead.put('oidc:Session:uid:u', { payload: '{}' });
    ahead.put('scope_policies', []);
    ahead.forget('oidc:');
    expect(ahead.take('oidc:Grant:id:g')).toBeUndefined();
    expect(ahead.take('oidc:Session:uid:u')).toBeUndefined();
    expect(ahead.take('scope_policies')).toEqual({ value: [] });
  });

  it('keeps pending work per request, reachable by the request object from outside its context', () => {
    let current: object | undefined = {};
    const request = current;
    const ahead = createReadAhead(() => current);
    ahead.setPending('consume', { id: 'r1' });
    expect(ahead.pending('consume')).toEqual({ id: 'r1' });
    current = undefined;
    expect(ahead.pending('consume')).toBeUndefined();
    expect(ahead.pending('consume', {})).toBeUndefined();
    expect(ahead.pending('consume', request)).toEqual({ id: 'r1' });
    ahead.setPending('consume', undefined, request);
    expect(ahead.pending('consume', request)).toBeUndefined();
  });

  it('NO_READ_AHEAD keeps nothing', () => {
    NO_READ_AHEAD.put('k', 1);
    expect(NO_READ_AHEAD.active()).toBe(false);
    expect(NO_READ_AHEAD.take('k')).toBeUndefined();
  });
});
