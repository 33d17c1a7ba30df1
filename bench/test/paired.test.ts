import { describe, expect, it } from 'vitest';
import { compare, median, type Measure } from '../src/paired.ts';

/** A measuring function that answers the given rates in turn, and records when it ran. */
function scripted(name: string, rates: readonly number[], calls: string[]): Measure {
  let i = 0;
  return async () => {
    const rate = rates[i++];
    if (rate === undefined) throw new Error(`${name} was measured more often than scripted`);
    calls.push(name);
    return rate;
  };
}

const noPause = async () => {};

describe('median', () => {
  it('is the middle value of an odd count and the mean of the two middle values of an even one', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('leaves its input in its order', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('compare', () => {
  it('warms each side up first, then alternates the order round by round: A,B then B,A', async () => {
    const calls: string[] = [];
    await compare({
      name: 'order',
      subject: scripted('s', [1, 1, 1, 1, 1, 1], calls),
      baseline: scripted('b', [1, 1, 1, 1, 1, 1], calls),
      rounds: 4,
      warmups: 2,
      pause: noPause,
    });
    expect(calls).toEqual(['s', 'b', 's', 'b', 's', 'b', 'b', 's', 's', 'b', 'b', 's']);
  });

  it('rounds an odd number of rounds up to an even one, so every order meets its reverse', async () => {
    const rounds: number[] = [];
    const result = await compare({
      name: 'odd',
      subject: async () => 2,
      baseline: async () => 4,
      rounds: 3,
      pause: noPause,
      onRound: (round) => rounds.push(round),
    });
    expect(rounds).toEqual([1, 2, 3, 4]);
    expect(result.pairs).toEqual([0.5, 0.5]);
  });

  it('does not count the warm-up measurements', async () => {
    const calls: string[] = [];
    const result = await compare({
      name: 'warm-up',
      // A cold first measurement of each side, far off the rest.
      subject: scripted('s', [1, 80, 80], calls),
      baseline: scripted('b', [1000, 100, 100], calls),
      rounds: 2,
      pause: noPause,
    });
    expect(result.ratio).toBeCloseTo(0.8, 12);
    expect(result.subject).toBe(80);
    expect(result.baseline).toBe(100);
  });

  it('combines two consecutive rounds by their geometric mean, so a bias of whichever side runs second cancels', async () => {
    // True rates 80 and 100; whichever side runs second in a round loses 10%.
    const calls: string[] = [];
    const result = await compare({
      name: 'second-run bias',
      //                warm-up, round 1 (first), round 2 (second), round 3 (first), round 4 (second)
      subject: scripted('s', [80, 80, 72, 80, 72], calls),
      //                warm-up, round 1 (second), round 2 (first), round 3 (second), round 4 (first)
      baseline: scripted('b', [100, 90, 100, 90, 100], calls),
      rounds: 4,
      pause: noPause,
    });
    expect(result.pairs).toHaveLength(2);
    for (const pair of result.pairs) expect(pair).toBeCloseTo(0.8, 12);
    expect(result.ratio).toBeCloseTo(0.8, 12);
  });

  it('cancels a slow drift of the machine that both sides of a round share', async () => {
    // The machine slows down round by round; the subject stays at 0.75 of the baseline.
    const speed = [1, 1, 0.9, 0.8, 0.7, 0.6, 0.5];
    const result = await compare({
      name: 'drift',
      subject: scripted('s', speed.map((f) => 75 * f), []),
      baseline: scripted('b', speed.map((f) => 100 * f), []),
      rounds: 6,
      pause: noPause,
    });
    expect(result.ratio).toBeCloseTo(0.75, 12);
  });

  it('answers the median of the pair ratios, which one disturbed round does not move', async () => {
    const result = await compare({
      name: 'disturbed',
      // Round 3 of the subject met a busy neighbour.
      subject: scripted('s', [90, 90, 90, 20, 90, 90, 90], []),
      baseline: scripted('b', [100, 100, 100, 100, 100, 100, 100], []),
      rounds: 6,
      pause: noPause,
    });
    expect(result.pairs[0]).toBeCloseTo(0.9, 12);
    expect(result.pairs[1]).toBeCloseTo(Math.sqrt(0.2 * 0.9), 12);
    expect(result.pairs[2]).toBeCloseTo(0.9, 12);
    expect(result.ratio).toBeCloseTo(0.9, 12);
  });

  it('reports the medians of each side, the budget and every round to onRound', async () => {
    const seen: [number, number, number][] = [];
    const result = await compare({
      name: 'reported',
      subject: scripted('s', [0, 10, 30, 20, 40], []),
      baseline: scripted('b', [0, 50, 50, 60, 40], []),
      rounds: 4,
      budget: 0.8,
      pause: noPause,
      onRound: (round, s, b) => seen.push([round, s, b]),
    });
    expect(seen).toEqual([
      [1, 10, 50],
      [2, 30, 50],
      [3, 20, 60],
      [4, 40, 40],
    ]);
    expect(result).toMatchObject({ name: 'reported', subject: 25, baseline: 50, budget: 0.8 });
    expect(result.pairs[0]).toBeCloseTo(Math.sqrt(0.2 * 0.6), 12);
    expect(result.pairs[1]).toBeCloseTo(Math.sqrt((20 / 60) * 1), 12);
    expect(result.ratio).toBeCloseTo((result.pairs[0]! + result.pairs[1]!) / 2, 12);
  });

  it('pauses between measurements with the pause it is given', async () => {
    const pauses: number[] = [];
    await compare({
      name: 'pauses',
      subject: async () => 1,
      baseline: async () => 1,
      rounds: 2,
      pause: async (ms) => {
        pauses.push(ms);
      },
    });
    expect(pauses).toEqual([200, 200, 200, 200]);
  });
});
