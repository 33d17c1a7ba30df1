/** gatehouse_build_info: version from package.json, commit from the checkout (a ref file, packed-refs, a detached HEAD), else unknown. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry, readBuildInfo, registerBuildInfo } from '../src/index.ts';

const SHA = 'a'.repeat(40);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A tree with apps/x/package.json and, optionally, a .git directory at its root. */
function tree(git?: Record<string, string>): URL {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-build-info-'));
  dirs.push(root);
  mkdirSync(join(root, 'apps', 'x'), { recursive: true });
  writeFileSync(join(root, 'apps', 'x', 'package.json'), '{"name":"x","version":"1.2.3"}');
  for (const [path, content] of Object.entries(git ?? {})) {
    mkdirSync(join(root, '.git', path, '..'), { recursive: true });
    writeFileSync(join(root, '.git', path), content);
  }
  return pathToFileURL(join(root, 'apps', 'x', 'package.json'));
}

describe('readBuildInfo', () => {
  it('reads the branch head from its ref file, or from packed-refs, or a detached HEAD', () => {
    expect(readBuildInfo('x', tree({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${SHA}\n` }))).toEqual({ app: 'x', version: '1.2.3', commit: SHA });
    const packed = 'b'.repeat(40);
    expect(readBuildInfo('x', tree({ HEAD: 'ref: refs/heads/main\n', 'packed-refs': `# pack-refs\n${packed} refs/heads/main\n` })).commit).toBe(packed);
    expect(readBuildInfo('x', tree({ HEAD: `${SHA}\n` })).commit).toBe(SHA);
  });

  it('names no commit outside a checkout', () => {
    // A temporary directory has no checkout above it.
    expect(readBuildInfo('x', tree())).toEqual({ app: 'x', version: '1.2.3', commit: 'unknown' });
  });
});

describe('registerBuildInfo', () => {
  it('exports one series of value 1, once per registry', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, { app: 'api', version: '1.2.3', commit: SHA });
    registerBuildInfo(registry, { app: 'api', version: '9.9.9', commit: 'unknown' });
    const lines = (await registry.metrics()).split('\n').filter((l) => l.startsWith('gatehouse_build_info'));
    expect(lines).toEqual([`gatehouse_build_info{app="api",version="1.2.3",commit="${SHA}",node_version="${process.version}"} 1`]);
  });
});
