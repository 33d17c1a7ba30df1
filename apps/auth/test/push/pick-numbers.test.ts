import { describe, expect, it } from 'vitest';
import { pickNumbers, PUSH_CHOICES } from '../../src/push/push-challenge.ts';

describe('pickNumbers', () => {
  it('hides a two-digit number among distinct two-digit decoys, in varying positions', () => {
    const positions = new Set<number>();
    for (let i = 0; i < 200; i += 1) {
      const { number, choices } = pickNumbers();
      expect(choices).toHaveLength(PUSH_CHOICES);
      expect(new Set(choices).size).toBe(PUSH_CHOICES);
      for (const n of choices) {
        expect(Number.isInteger(n)).toBe(true);
        expect(n).toBeGreaterThanOrEqual(10);
        expect(n).toBeLessThanOrEqual(99);
      }
      positions.add(choices.indexOf(number));
    }
    expect([...positions].sort()).toEqual([0, 1, 2]);
  });
});
