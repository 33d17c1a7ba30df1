/**
 * The `production` project's global setup (vitest.config.ts): the packages and apps are built
 * for production (`dist/`) once per run, before the files that start built servers
 * (tests/production.test.ts, tests/deploy-guide.test.ts); a failed build fails the run.
 */
import { buildForProduction } from './processes.ts';

export default function setup(): void {
  buildForProduction();
}
