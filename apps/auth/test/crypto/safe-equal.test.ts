import { describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/crypto/safe-equal.ts';

describe('safeEqual', () => {
  it('is true only for identical strings', () => {
    expect(safeEqual('s3cret', 's3cret')).toBe(true);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('s3cret', 's3creT')).toBe(false);
    expect(safeEqual('s3cret', 's3cret ')).toBe(false);
    expect(safeEqual('short', 'a much longer value')).toBe(false);
    expect(safeEqual('', 'x')).toBe(false);
  });
});
