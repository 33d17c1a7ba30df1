import { describe, expect, it } from 'vitest';
import { negotiate, negotiateProblem } from '../../src/representations/negotiate.ts';

describe('negotiate', () => {
  it.each([
    [undefined, 'json', 'application/json', undefined],
    ['', 'json', 'application/json', undefined],
    ['*/*', 'json', 'application/json', undefined],
    ['application/*', 'json', 'application/json', undefined],
    ['text/*', 'html', 'text/html', undefined],
    ['application/xml', 'xml', 'application/xml', undefined],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'html', 'text/html', undefined],
    ['application/json;q=0.5, application/xml', 'xml', 'application/xml', undefined],
    ['application/json;q=0.5, application/xml;q=0.5, text/html;q=0.5', 'json', 'application/json', undefined],
    ['text/html;q=0.9, */*;q=0.1', 'html', 'text/html', undefined],
    ['*/*;q=0.8, application/json;q=0', 'xml', 'application/xml', undefined],
    ['application/vnd.gatehouse.v2+json', 'json', 'application/vnd.gatehouse.v2+json', '2'],
    ['application/vnd.gatehouse.v1+xml', 'xml', 'application/vnd.gatehouse.v1+xml', '1'],
    ['APPLICATION/VND.GATEHOUSE.V2+JSON', 'json', 'application/vnd.gatehouse.v2+json', '2'],
    ['application/json, application/vnd.gatehouse.v2+json', 'json', 'application/vnd.gatehouse.v2+json', '2'],
    ['application/vnd.gatehouse.v2+json;q=0.5, application/xml', 'xml', 'application/xml', undefined],
  ])('%j → %s (%s)', (accept, representation, contentType, version) => {
    expect(negotiate(accept)).toEqual({ representation, contentType, mediaTypeVersion: version });
  });

  it.each(['image/png', 'text/plain', 'application/json;q=0', 'application/vnd.gatehouse.v2+json;q=0', 'application/vnd.other.v1+json'])(
    '%j → nothing acceptable',
    (accept) => {
      expect(negotiate(accept)).toBeUndefined();
    },
  );
});

describe('negotiateProblem', () => {
  it.each([
    [undefined, 'json'],
    ['application/problem+json', 'json'],
    ['application/problem+xml', 'xml'],
    ['application/vnd.gatehouse.v2+xml', 'xml'],
    ['text/html', 'html'],
    ['image/png', 'json'],
    ['application/xml;q=0.4, application/problem+json;q=0.5', 'json'],
  ])('%j → %s', (accept, representation) => {
    expect(negotiateProblem(accept)).toBe(representation);
  });
});

describe('negotiate, asked again', () => {
  it('answers the same for a header it has seen, and for more headers than it remembers', () => {
    expect(negotiate('application/xml;q=0.9, text/html')).toEqual({ representation: 'html', mediaTypeVersion: undefined, contentType: 'text/html' });
    expect(negotiate('application/xml;q=0.9, text/html')).toEqual({ representation: 'html', mediaTypeVersion: undefined, contentType: 'text/html' });
    expect(negotiate('image/png')).toBeUndefined();
    expect(negotiate('image/png')).toBeUndefined();
    for (let i = 0; i < 600; i++) expect(negotiate(`application/vnd.gatehouse.v${i}+xml`)?.mediaTypeVersion).toBe(String(i));
    expect(Object.isFrozen(negotiate('application/json'))).toBe(true);
  });

  it('negotiates a long header it does not remember', () => {
    const accept = `${'image/png, '.repeat(40)}application/xml`;
    expect(negotiate(accept)).toEqual({ representation: 'xml', mediaTypeVersion: undefined, contentType: 'application/xml' });
  });
});
