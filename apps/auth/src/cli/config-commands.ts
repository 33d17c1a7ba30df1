/**
 * `authctl config check`: validates the environment as the server would at start, without
 * opening the database or listening (packages/config config-check.ts). Rules:
 * - a refused configuration prints the server's own start-up lines (`auth: …`, one problem a
 *   line) and exits 1; a valid one prints `auth: configuration ok (…)` and exits 0;
 * - the summary names the mode, the issuer, the audience and the database (password redacted),
 *   never a secret;
 * - a check writes nothing: in development, when `<AUTH_DATA_DIR>/auth-secrets.json` does not
 *   exist yet, it is not generated (the summary says the first start will), and no directory is
 *   created.
 */
import { redactUrl } from '@gatehouse/db';
import { runConfigCheck } from '@gatehouse/config';
import { loadConfig } from '../config/config.ts';
import { previewDevSecrets } from '../config/dev-secrets.ts';
import { UsageError } from './args.ts';
import type { CliIo } from './cli-context.ts';

export const CONFIG_USAGE = ['  config check                         validate the environment (every problem at once) without starting anything'];

export function runConfigCommand(sub: string | undefined, args: readonly string[], io: CliIo): number {
  if (sub !== 'check') throw new UsageError(sub ? `unknown command "config ${sub}"` : 'config: missing subcommand (check)');
  if (args.length) throw new UsageError(`config check: unexpected argument "${args[0]}"`);
  return runConfigCheck(
    'auth',
    () => {
      let wouldCreate: string | undefined;
      const config = loadConfig(io.env, {
        devSecrets: (dataDir) => {
          const preview = previewDevSecrets(dataDir);
          wouldCreate = preview.wouldCreate;
          return preview.secrets;
        },
      });
      return [
        config.production ? 'production' : 'development',
        `issuer ${config.issuer}`,
        `audience ${config.api.audience}`,
        `database ${redactUrl(config.databaseUrl)}`,
        `migrations ${config.migrate}`,
        ...(wouldCreate ? [`development secrets would be generated at first start in ${wouldCreate}`] : []),
      ];
    },
    io,
  );
}
