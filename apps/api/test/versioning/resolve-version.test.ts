import { describe, expect, it } from 'vitest';
import { resolveVersion, type VersionClaim } from '../../src/versioning/resolve-version.ts';
import { deprecationHeaders } from '../../src/versioning/deprecation.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import type { VersionSpec } from '../../src/collections/collection-config.ts';

const versions: VersionSpec[] = [
  { version: 1, deprecated: undefined },
  { version: 2, deprecated: undefined },
];

function outcome(claims: VersionClaim[]): string {
  try {
    return `v${resolveVersion(claims, versions).version}`;
  } catch (error) {
    return (error as ApiError).code;
  }
}

describe('resolveVersion', () => {
  it.each<[VersionClaim[], string]>([
    [[], 'v1'],
    [[{ scheme: 'path', value: 'v2' }], 'v2'],
    [[{ scheme: 'path', value: '2' }], 'v2'],
    [[{ scheme: 'header', value: 'V2' }], 'v2'],
    [[{ scheme: 'query', value: ' 1 ' }], 'v1'],
    [[{ scheme: 'path', value: 'v2' }, { scheme: 'header', value: 'v2' }, { scheme: 'query', value: '2' }, { scheme: 'media type', value: '2' }], 'v2'],
    [[{ scheme: 'path', value: 'v1' }, { scheme: 'header', value: 'v2' }], 'version_conflict'],
    [[{ scheme: 'header', value: 'v3' }], 'unsupported_version'],
    [[{ scheme: 'query', value: '' }], 'unsupported_version'],
    [[{ scheme: 'query', value: 'v01' }], 'unsupported_version'],
    [[{ scheme: 'query', value: 'latest' }], 'unsupported_version'],
    [[{ scheme: 'path', value: 'v1' }, { scheme: 'header', value: 'junk' }], 'unsupported_version'],
  ])('%j → %s', (claims, expected) => {
    expect(outcome(claims)).toBe(expected);
  });
});

describe('deprecationHeaders', () => {
  it('formats RFC 9745 and RFC 8594 values', () => {
    const since = new Date('2026-01-01T00:00:00Z');
    const sunset = new Date('2027-01-01T00:00:00Z');
    expect(deprecationHeaders({ since, sunset, link: 'https://docs.example/v1' }, 'http://h/api/openapi.json')).toEqual({
      deprecation: '@1767225600',
      sunset: 'Fri, 01 Jan 2027 00:00:00 GMT',
      links: ['<https://docs.example/v1>; rel="deprecation"; type="text/html"', '<https://docs.example/v1>; rel="sunset"; type="text/html"'],
    });
    expect(deprecationHeaders({ since, sunset: undefined, link: undefined }, 'http://h/api/openapi.json')).toEqual({
      deprecation: '@1767225600',
      links: ['<http://h/api/openapi.json>; rel="deprecation"; type="application/json"'],
    });
  });
});
