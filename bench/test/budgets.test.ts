import { describe, expect, it } from 'vitest';
import { judge, summaryLines, type Budget } from '../src/budgets.ts';

const ratio: Budget = { id: '#1', figure: 'read', bound: { atLeast: 0.8 }, unit: '×' };
const rss: Budget = { id: '#5', figure: 'rss', bound: { atMost: 120 }, unit: 'MB' };

describe('judge', () => {
  it('holds a ratio at its lower bound and a size at its upper bound, both inclusive', () => {
    const rows = judge([ratio, rss], [
      { name: 'read', value: 0.8, unit: '×' },
      { name: 'rss', value: 120, unit: 'MB' },
    ]);
    expect(rows.map((r) => r.verdict)).toEqual(['ok', 'ok']);
  });

  it('misses a ratio below its bound and a size above its bound', () => {
    const rows = judge([ratio, rss], [
      { name: 'read', value: 0.799, unit: '×' },
      { name: 'rss', value: 120.1, unit: 'MB' },
    ]);
    expect(rows.map((r) => r.verdict)).toEqual(['MISSED', 'MISSED']);
  });

  it('misses a budget whose figure was not measured, and reports a figure that has no budget', () => {
    const rows = judge([ratio, rss], [{ name: 'write', value: 0.4, unit: '×' }, { name: 'rss', value: 90, unit: 'MB' }]);
    expect(rows.map((r) => [r.name, r.verdict])).toEqual([
      ['read', 'MISSED'],
      ['rss', 'ok'],
      ['write', 'reported'],
    ]);
  });
});

describe('summaryLines', () => {
  it('prints one row per budget with its figure, its bound and the verdict, and the note under it', () => {
    const lines = summaryLines(judge([ratio, rss], [{ name: 'read', value: 0.8123, unit: '×', note: 'pairs 0.81 0.82' }]));
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^ {2}#1 +read +0\.812× {2}≥ 0\.80× +ok$/);
    expect(lines[2]).toMatch(/pairs 0\.81 0\.82$/);
    expect(lines[3]).toMatch(/^ {2}#5 +rss +not measured {2}≤ 120 MB +MISSED$/);
  });
});
