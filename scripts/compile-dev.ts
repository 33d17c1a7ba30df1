/**
 * The last step of `pnpm install` (the root `postinstall`): the modules every dev server loads
 * before it reads its configuration are compiled into the dev servers' compile cache
 * (@gatehouse/devlog compile-cache.ts, the cache scripts/dev.ts hands to the apps), so the first
 * `pnpm dev` after an install reuses compiled code as every later start does (bench/README.md,
 * "Start-up"). Rules:
 * - the modules are imported (evaluated, never started: no configuration is read, no database
 *   opened, nothing listens) in this one process, so a module several apps share is compiled once;
 * - the list below names each app's dev entry points past its main.ts (which would start it); a
 *   module missing from it is compiled by the first dev start instead, as without this step;
 * - it never fails an install: an app whose modules do not load is named in one line and the
 *   install goes on; one line reports what was compiled, where and how long it took.
 */
import { resolve } from 'node:path';
import { compileModules, devCompileCacheDir } from '@gatehouse/devlog/compile-cache';

const ROOT = resolve(import.meta.dirname, '..');

/** Per app: what its dev start imports, in its order (auth's preload step comes before its server module); `dev`: scripts/dev.ts's own. */
const DEV_MODULES: Readonly<Record<string, readonly string[]>> = {
  dev: ['packages/devlog/src/format-log-line.ts', 'packages/devlog/src/dev-script.ts', 'packages/devlog/src/watched-process.ts'],
  auth: ['packages/runtime/src/index.ts', 'apps/auth/src/oidc/deferred-list-format.ts', 'apps/auth/src/server.ts'],
  api: ['apps/api/src/server.ts'],
  client: ['apps/client/src/dev-apps.ts'],
};

const dir = devCompileCacheDir(ROOT);
const result = await compileModules(dir, Object.fromEntries(Object.entries(DEV_MODULES).map(([app, modules]) => [app, modules.map((module) => resolve(ROOT, module))])));
const seconds = (result.ms / 1000).toFixed(1);
process.stdout.write(`compile-dev: ${result.compiled.join(', ') || 'no app'} compiled for pnpm dev in ${seconds} s (${dir})\n`);
for (const { group, message } of result.failed) process.stdout.write(`compile-dev: ${group} not compiled (${message}); its first pnpm dev start compiles it\n`);
// An imported module may have left a timer or a handle open; nothing here is waited for.
process.exit(0);
