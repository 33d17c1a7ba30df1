/**
 * The last step of an app's production build (`pnpm build`, after `tsc`; run in the app's folder):
 * the built app loads the built JavaScript of the workspace packages it depends on, never their
 * TypeScript sources. Rules:
 * - for each `@gatehouse/*` package in the app's `dependencies`, `dist/node_modules/@gatehouse/<name>/`
 *   gets a package.json whose exports map is the package's own with `./src/<x>.ts` read as
 *   `./dist/<x>.js`, and `dist`, a relative symlink to the package's own `dist/` (its `build`);
 * - Node looks for `@gatehouse/<name>` in `dist/node_modules` first (it walks up from the importing
 *   file), so `node dist/main.js` needs no flag, while `node src/main.ts` (pnpm dev) and the tests
 *   keep resolving the sources through the workspace link; the package's modules resolve their
 *   own dependencies from the package's folder (the symlink's target), as without the link;
 * - a package whose `dist/` is missing or older than one of its sources fails the build, naming
 *   it (`pnpm build` builds the packages first: turbo's `^build`); so does a linked package that
 *   itself depends on a workspace package (it would load that one's sources again).
 * Why: a process that loads one `.ts` file loads Node's type stripper (WebAssembly) with it, which
 * holds resident memory for the life of the process (bench/README.md, "Memory").
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

interface PackageJson {
  name: string;
  type?: string;
  exports?: Record<string, string>;
  dependencies?: Record<string, string>;
}

const ROOT = resolve(import.meta.dirname, '..');
const SCOPE = '@gatehouse/';
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PackageJson;

function fail(message: string): never {
  process.stderr.write(`link-built-packages: ${message}\n`);
  process.exit(1);
}

/** The workspace packages by name: packages/<folder>/package.json. */
function workspacePackages(): Map<string, string> {
  const found = new Map<string, string>();
  for (const folder of readdirSync(join(ROOT, 'packages'))) {
    const file = join(ROOT, 'packages', folder, 'package.json');
    if (existsSync(file)) found.set(readJson(file).name, join(ROOT, 'packages', folder));
  }
  return found;
}

/** Every `.ts` source below `dir` must have its `.js` in `out`, written after it. */
function checkBuilt(name: string, dir: string, out: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const source = join(dir, entry.name);
    if (entry.isDirectory()) {
      checkBuilt(name, source, join(out, entry.name));
      continue;
    }
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const built = join(out, entry.name.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || lstatSync(built).mtimeMs < lstatSync(source).mtimeMs) {
      fail(`${name} is not built or is older than ${relative(ROOT, source)}: run its build first (pnpm build at the root builds the packages before the apps)`);
    }
  }
}

function builtExports(pkg: PackageJson): Record<string, string> {
  const mapped: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const match = /^\.\/src\/(.+)\.ts$/.exec(target);
    if (!match) fail(`${pkg.name} exports ${subpath} as ${target}; expected ./src/<file>.ts`);
    mapped[subpath] = `./dist/${match[1]}.js`;
  }
  return mapped;
}

const appDir = process.cwd();
const app = readJson(join(appDir, 'package.json'));
const packages = workspacePackages();
const linkRoot = join(appDir, 'dist', 'node_modules', '@gatehouse');
rmSync(linkRoot, { recursive: true, force: true });
for (const name of Object.keys(app.dependencies ?? {}).filter((dep) => dep.startsWith(SCOPE))) {
  const dir = packages.get(name) ?? fail(`${app.name} depends on ${name}, which is not in packages/`);
  const pkg = readJson(join(dir, 'package.json'));
  const nested = Object.keys(pkg.dependencies ?? {}).find((dep) => dep.startsWith(SCOPE));
  if (nested) fail(`${name} depends on ${nested}: a built package would load that one's sources; link it here too before allowing this`);
  checkBuilt(name, join(dir, 'src'), join(dir, 'dist'));
  const linkDir = join(linkRoot, name.slice(SCOPE.length));
  mkdirSync(linkDir, { recursive: true });
  writeFileSync(join(linkDir, 'package.json'), `${JSON.stringify({ name, private: true, type: pkg.type, exports: builtExports(pkg) }, null, 2)}\n`);
  symlinkSync(relative(linkDir, join(dir, 'dist')), join(linkDir, 'dist'), 'dir');
}
