import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keepTickObjectShape, keptTickObject } from '../src/index.ts';

const fixture = fileURLToPath(new URL('./fixtures/tick-feedback.ts', import.meta.url));

/** The states of the tick literal's computed-key slots after a memory-reducing collection. */
function literalStates(mode: 'none' | 'kept' | 'release'): string[] {
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', fixture, mode], { encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  return [...run.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]!);
}

describe('keepTickObjectShape', () => {
  it('keeps one tick object once its tick has run', async () => {
    keepTickObjectShape();
    keepTickObjectShape();
    await new Promise<void>((resolve) => process.nextTick(resolve));
    const kept = keptTickObject();
    expect(kept).toBeDefined();
    expect(Object.getOwnPropertySymbols(kept).map(String)).toEqual(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)', 'Symbol(kAsyncContextFrame)']);
    expect(Object.keys(kept!)).toEqual(['callback', 'args']);
  });

  // The V8 behaviour it works around: without a live tick object the collection drops the tick
  // object's maps, and the next ticks turn the literal's feedback megamorphic for good. When a
  // Node upgrade makes this pass no more, keep-tick-shape.ts may have become unnecessary.
  it('without it, a memory-reducing collection between ticks leaves the tick literal megamorphic', () => {
    const states = literalStates('none');
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(states).toContain('MEGAMORPHIC');
  });

  it('with it, the tick literal stays monomorphic through the collection', () => {
    const states = literalStates('kept');
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(new Set(states)).toEqual(new Set(['MONOMORPHIC']));
  });

  it('releaseStartupMemory keeps the tick maps by itself', () => {
    const states = literalStates('release');
    expect(states.length).toBeGreaterThanOrEqual(3);
    expect(new Set(states)).toEqual(new Set(['MONOMORPHIC']));
  });
});
