import { describe, expect, it } from 'vitest';
import { OTHER_ROUTE, routeTable } from '../src/index.ts';

describe('routeTable', () => {
  const route = routeTable(['/', '/healthz', '/items/:id/delete', '/mfa/push/:id', '/mfa/push/:id/status']);

  it('names a path by its pattern, never by its ids', () => {
    expect(route('/')).toBe('/');
    expect(route('/healthz')).toBe('/healthz');
    expect(route('/items/42/delete')).toBe('/items/:id/delete');
    expect(route('/mfa/push/tx-secret-123')).toBe('/mfa/push/:id');
    expect(route('/mfa/push/tx-secret-123/status')).toBe('/mfa/push/:id/status');
  });

  it('answers "other" for anything undeclared, an empty parameter or a trailing slash', () => {
    expect(OTHER_ROUTE).toBe('other');
    expect(route('/wp-admin/setup.php')).toBe('other');
    expect(route('/items//delete')).toBe('other');
    expect(route('/healthz/')).toBe('other');
    expect(route('/mfa/push/a/b/c')).toBe('other');
  });

  it('lets an earlier pattern with a parameter name a later fixed path first', () => {
    const shadowed = routeTable(['/items/:id', '/items/new', '/items/all/:page', '/items/all']);
    expect(shadowed('/items/new')).toBe('/items/:id');
    expect(shadowed('/items/all')).toBe('/items/:id');
    expect(shadowed('/items/all/2')).toBe('/items/all/:page');
    expect(routeTable(['/items/new', '/items/:id'])('/items/new')).toBe('/items/new');
  });
});
