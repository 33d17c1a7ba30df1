import { describe, expect, it } from 'vitest';
import { matchPath } from '../../src/items/match-path.ts';

describe('matchPath', () => {
  it.each([
    ['/api/movies', { pathVersion: undefined, resource: 'movies', idSegment: undefined, collectionPath: '/api/movies' }],
    ['/api/movies/7', { pathVersion: undefined, resource: 'movies', idSegment: '7', collectionPath: '/api/movies' }],
    ['/api/v2/movies/7', { pathVersion: 'v2', resource: 'movies', idSegment: '7', collectionPath: '/api/v2/movies' }],
    ['/v1/cars', { pathVersion: 'v1', resource: 'cars', idSegment: undefined, collectionPath: '/v1/cars' }],
    ['/rest/api/1/users/3', { pathVersion: '1', resource: 'users', idSegment: '3', collectionPath: '/rest/api/1/users' }],
    ['/rest/api/v2/users', { pathVersion: 'v2', resource: 'users', idSegment: undefined, collectionPath: '/rest/api/v2/users' }],
    ['/api/mo%76ies', { pathVersion: undefined, resource: 'movies', idSegment: undefined, collectionPath: '/api/mo%76ies' }],
  ])('%s', (path, expected) => {
    expect(matchPath(path)).toEqual(expected);
  });

  it.each(['/', '/api', '/api/', '/api/movies/', '/api//movies', '/api/movies/1/2', '/v1', '/rest/api/v1', '/rest/movies', '/movies', '/api/a%2Fb', '/api/%E0%A4%A'])(
    '%s matches nothing',
    (path) => {
      expect(matchPath(path)).toBeUndefined();
    },
  );
});

describe('matchPath, asked again', () => {
  it('answers the same for a path it has seen, and for more paths than it remembers', () => {
    const first = matchPath('/api/v2/movies/7');
    expect(matchPath('/api/v2/movies/7')).toEqual(first);
    expect(Object.isFrozen(first)).toBe(true);
    for (let i = 0; i < 3000; i++) expect(matchPath(`/api/movies/${i}`)?.idSegment).toBe(String(i));
    expect(matchPath('/api/movies/')).toBeUndefined();
    expect(matchPath('/api/movies/')).toBeUndefined();
  });

  it('matches a long path it does not remember', () => {
    const id = '9'.repeat(300);
    expect(matchPath(`/api/movies/${id}`)).toEqual({ pathVersion: undefined, resource: 'movies', idSegment: id, collectionPath: '/api/movies' });
  });
});
