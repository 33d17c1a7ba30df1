/**
 * oidc/deferred-list-format.ts: while it is in place, an Intl.ListFormat answers exactly what the
 * real one answers (built on first use); the function deferListFormat returns puts the real constructor back.
 */
import { describe, expect, it } from 'vitest';

describe('deferred Intl.ListFormat', () => {
  it('formats as the real one, defers bad options to the first call, and is restored', async () => {
    const Real = Intl.ListFormat;
    const { deferListFormat } = await import('../../src/oidc/deferred-list-format.ts');
    expect(Intl.ListFormat).toBe(Real);
    const restoreListFormat = deferListFormat();
    try {
      expect(Intl.ListFormat).not.toBe(Real);
      const conjunction = new Intl.ListFormat('en', { type: 'conjunction' });
      const disjunction = new Intl.ListFormat('en', { type: 'disjunction' });
      expect(conjunction.format(['a', 'b', 'c'])).toBe(new Real('en', { type: 'conjunction' }).format(['a', 'b', 'c']));
      expect(conjunction.format(['a', 'b', 'c'])).toBe('a, b, and c');
      expect(disjunction.format(['x', 'y'])).toBe('x or y');
      expect(disjunction.formatToParts(['x', 'y'])).toEqual([
        { type: 'element', value: 'x' },
        { type: 'literal', value: ' or ' },
        { type: 'element', value: 'y' },
      ]);
      expect(disjunction.resolvedOptions()).toEqual({ locale: 'en', type: 'disjunction', style: 'long' });
      const bad = new Intl.ListFormat('en', { type: 'nonsense' as 'conjunction' });
      expect(() => bad.format(['a'])).toThrow(RangeError);
    } finally {
      restoreListFormat();
    }
    expect(Intl.ListFormat).toBe(Real);
    expect(new Intl.ListFormat('en')).toBeInstanceOf(Real);
  });
});
