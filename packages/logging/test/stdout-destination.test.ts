import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.ts';
import { batchedStdout, STDOUT_BATCH_BYTES } from '../src/stdout-destination.ts';

const logger = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** Runs `body` in a fresh Node process with a default (stdout) logger named `log`. */
function run(body: string): { lines: Promise<Record<string, unknown>[]>; firstLine: Promise<Record<string, unknown>>; exit: Promise<number | null>; kill(): void } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { createLogger } from ${JSON.stringify(logger)};\nconst log = createLogger({ name: 't', level: 'info' });\n${body}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let resolveFirst: (line: Record<string, unknown>) => void;
  const firstLine = new Promise<Record<string, unknown>>((resolve) => (resolveFirst = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += String(chunk);
    const newline = out.indexOf('\n');
    if (newline > 0) resolveFirst(JSON.parse(out.slice(0, newline)) as Record<string, unknown>);
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const lines = exit.then(() => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
  return { lines, firstLine, exit, kill: () => child.kill('SIGKILL') };
}

describe('the default destination: stdout, batched', () => {
  it('holds short lines back and writes them together', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-log-')), 'out.log');
    const destination = batchedStdout(openSync(file, 'w'));
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    expect(readFileSync(file, 'utf8')).toBe('');
    destination.flushSync();
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    // A batch's worth is written at once, the lines in order.
    const line = `{"n":3,"pad":"${'x'.repeat(100)}"}\n`;
    for (let i = 0; i < Math.ceil(STDOUT_BATCH_BYTES / line.length); i++) destination.write(line);
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n' + line.repeat(Math.ceil(STDOUT_BATCH_BYTES / line.length)));
  });

  it('writes what is waiting when the process exits at once', async () => {
    const child = run(`log.info({ n: 1 }, 'one'); log.info({ n: 2 }, 'two'); process.exit(3);`);
    expect(await child.exit).toBe(3);
    expect((await child.lines).map((l) => [l.n, l.msg, l.name])).toEqual([
      [1, 'one', 't'],
      [2, 'two', 't'],
    ]);
  });

  it('writes what is waiting before an uncaught exception ends the process', async () => {
    const child = run(`log.error({ event: 'about_to_fail' }, 'failing'); setImmediate(() => { throw new Error('boom'); });`);
    expect(await child.exit).toBe(1);
    expect((await child.lines).map((l) => l.event)).toEqual(['about_to_fail']);
  });

  it("writes what is waiting when pino's logger.flush calls it, then calls back", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gatehouse-log-')), 'out.log');
    const destination = batchedStdout(openSync(file, 'w'));
    const logger = createLogger({ name: 'flush', level: 'info', destination });
    logger.info({ n: 7 }, 'flushed');
    expect(readFileSync(file, 'utf8')).toBe('');
    let calledBack = false;
    logger.flush(() => (calledBack = true));
    expect(calledBack).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ name: 'flush', n: 7, msg: 'flushed' });
  });

  it('writes a lone line of a process that goes on running, without waiting for more', async () => {
    // The process keeps running (an interval) and logs once: the line arrives by the periodic flush.
    const child = run(`setInterval(() => {}, 1000); log.info({ event: 'lonely' }, 'only line');`);
    try {
      expect((await child.firstLine).event).toBe('lonely');
    } finally {
      child.kill();
    }
  });

  it('loses no line when many more than a batch are written at once', async () => {
    const count = Math.ceil((STDOUT_BATCH_BYTES * 20) / 80);
    const child = run(`for (let i = 0; i < ${count}; i++) log.info({ i }, 'x'.repeat(40)); process.exit(0);`);
    expect(await child.exit).toBe(0);
    const lines = await child.lines;
    expect(lines.length).toBe(count);
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: count }, (_, i) => i));
  });
});
