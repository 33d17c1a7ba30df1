/**
 * `pnpm --filter @gatehouse/api config:check`: validates the API's environment (and its
 * collections file) as start-up would, without opening the database or listening. Prints the
 * start-up lines and exits 1 when refused; `api: configuration ok (…)` and 0 otherwise
 * (packages/config config-check.ts). Never prints a secret.
 */
import { runConfigCheck } from '@gatehouse/config';
import { redactUrl } from '@gatehouse/db';
import { loadApiDefinition } from './collections/collection-config.ts';
import { loadConfig } from './config/config.ts';

process.exitCode = runConfigCheck(
  'api',
  () => {
    const config = loadConfig(process.env);
    const definition = loadApiDefinition(config.collectionsFile);
    return [
      config.production ? 'production' : 'development',
      `public URL ${config.publicUrl}`,
      `issuer ${config.issuer}`,
      `audience ${config.audience}`,
      `database ${redactUrl(config.databaseUrl)}`,
      `collections ${[...definition.collections.keys()].join(', ')}`,
    ];
  },
  { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) },
);
