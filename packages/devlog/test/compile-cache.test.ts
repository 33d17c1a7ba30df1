import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { devCompileCacheDir } from '../src/compile-cache.ts';

const COMPILE_CACHE_MODULE = pathToFileURL(join(import.meta.dirname, '..', 'src', 'compile-cache.ts')).href;

describe('devCompileCacheDir', () => {
  it('is node_modules/.cache/node-compile-cache under the root, or NODE_COMPILE_CACHE when it is set', () => {
    expect(devCompileCacheDir('/repo', {})).toBe('/repo/node_modules/.cache/node-compile-cache');
    expect(devCompileCacheDir('/repo', { NODE_COMPILE_CACHE: '' })).toBe('/repo/node_modules/.cache/node-compile-cache');
    expect(devCompileCacheDir('/repo', { NODE_COMPILE_CACHE: '/tmp/cache' })).toBe('/tmp/cache');
  });
});

describe('compileModules', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `code` as an ES module in a Node of its own, with Node's compile-cache log on; without NODE_COMPILE_CACHE. */
  function node(code: string): { status: number | null; stdout: string; stderr: string } {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    delete env.NODE_COMPILE_CACHE;
    return spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
  }

  it("compiles each group's modules into the cache a later process reads, and reports a group that fails without stopping", () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-compile-cache-'));
    const cache = join(dir, 'cache');
    writeFileSync(join(dir, 'shared.ts'), 'export const twice = (n: number): number => n * 2;\n');
    writeFileSync(join(dir, 'app.ts'), "import { twice } from './shared.ts';\nexport const answer: number = twice(21);\n");
    writeFileSync(join(dir, 'broken.ts'), "throw new Error('broken at load\\nsecond line');\n");
    const groups = { first: [join(dir, 'app.ts')], broken: [join(dir, 'shared.ts'), join(dir, 'broken.ts')], last: [join(dir, 'shared.ts')] };

    const run = node(`const { compileModules } = await import(${JSON.stringify(COMPILE_CACHE_MODULE)});
      const { compiled, failed } = await compileModules(${JSON.stringify(cache)}, ${JSON.stringify(groups)});
      process.stdout.write(JSON.stringify({ compiled, failed }));`);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ compiled: ['first', 'last'], failed: [{ group: 'broken', message: 'broken at load' }] });

    // A later process with the same cache reads both the stripped TypeScript and V8's code back.
    const appUrl = pathToFileURL(join(dir, 'app.ts')).href;
    const again = node(`import { enableCompileCache } from 'node:module'; enableCompileCache(${JSON.stringify(cache)}); await import(${JSON.stringify(appUrl)});`);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain(`retrieving transpile cache for StrippedTypeScript ${appUrl}...success`);
    expect(again.stderr).toContain(`V8 code cache for ESM ${appUrl} was accepted`);

    // The same import with an empty cache finds nothing: the lines above come from compileModules.
    const cold = node(`import { enableCompileCache } from 'node:module'; enableCompileCache(${JSON.stringify(join(dir, 'empty'))}); await import(${JSON.stringify(appUrl)});`);
    expect(cold.status).toBe(0);
    expect(cold.stderr).not.toContain(`V8 code cache for ESM ${appUrl} was accepted`);
  });
});
