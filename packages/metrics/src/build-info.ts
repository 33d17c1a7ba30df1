/**
 * `gatehouse_build_info{app,version,commit,node_version} 1`: what runs where, the series
 * dashboards join on and an alert compares across instances (two versions of one app in a fleet
 * outside a rolling upgrade). Rules:
 * - `version` is the app's package.json version; `commit` the git commit of the tree the app was
 *   built from when that tree is a git checkout (the deploy guide builds from one), else `unknown`;
 * - read once at start, never per scrape.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Gauge, type Registry } from 'prom-client';

/** What {@link registerBuildInfo} labels the series with. */
interface BuildInfo {
  /** The app (`auth`, `api`, or the relying party's client id). */
  readonly app: string;
  readonly version: string;
  readonly commit: string;
}

/** The git directory of the checkout holding `from`, if any (a `.git` file points to a worktree's). */
function gitDirectory(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, '.git');
    if (existsSync(candidate)) {
      if (statSync(candidate).isDirectory()) return candidate;
      const pointer = /^gitdir: (.+)$/m.exec(readFileSync(candidate, 'utf8'));
      return pointer ? resolve(dir, pointer[1]!.trim()) : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function headCommit(gitDir: string): string | undefined {
  const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref: (.+)$/.exec(head)?.[1];
  if (!ref) return undefined;
  const common = existsSync(join(gitDir, 'commondir')) ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()) : gitDir;
  for (const dir of [gitDir, common]) {
    const file = join(dir, ref);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  }
  const packed = join(common, 'packed-refs');
  if (!existsSync(packed)) return undefined;
  return readFileSync(packed, 'utf8')
    .split('\n')
    .find((line) => line.endsWith(` ${ref}`))
    ?.slice(0, 40);
}

/**
 * The build of the app whose package.json is at `packageJson` (e.g.
 * `new URL('../package.json', import.meta.url)` from its `src/` or `dist/`).
 */
export function readBuildInfo(app: string, packageJson: URL): BuildInfo {
  const path = fileURLToPath(packageJson);
  const { version } = JSON.parse(readFileSync(path, 'utf8')) as { version?: string };
  let commit: string | undefined;
  try {
    const gitDir = gitDirectory(dirname(path));
    commit = gitDir ? headCommit(gitDir) : undefined;
  } catch {
    // An unreadable checkout names no commit; the build info is still served.
  }
  return { app, version: version ?? 'unknown', commit: commit ?? 'unknown' };
}

/** Registers `gatehouse_build_info` (value 1) on `registry`. */
export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  // Once per registry (an app built twice on one registry, as some tests do, keeps the first).
  if (registry.getSingleMetric('gatehouse_build_info')) return;
  const gauge = new Gauge({
    name: 'gatehouse_build_info',
    help: 'The running build: app, version, git commit (unknown outside a checkout) and Node.js version; always 1.',
    labelNames: ['app', 'version', 'commit', 'node_version'] as const,
    registers: [registry],
  });
  gauge.set({ app: info.app, version: info.version, commit: info.commit, node_version: process.version }, 1);
}
