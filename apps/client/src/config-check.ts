/**
 * `pnpm --filter @gatehouse/client config:check`: validates the relying party's environment as
 * start-up would, without opening the database or listening (packages/config config-check.ts).
 * Rules:
 * - with CLIENT_ID set, the one app `dist/main.js` would start from this environment: its
 *   start-up lines when refused, or `<client id>: configuration ok (…)`;
 * - without it, app-one and app-two as `pnpm start` (the launcher) would start them, from their
 *   APP_ONE_* / APP_TWO_* variables: the launcher's problems and both apps' in one list
 *   (launcher.ts checkLaunch), or one `client: configuration ok (…)` line naming each app;
 * - the exit code is 1 when refused. Never prints a secret, and writes nothing: development keys
 *   that do not exist yet are named as what the first start will generate.
 */
import { runConfigCheck } from '@gatehouse/config';
import { redactUrl } from '@gatehouse/db';
import { loadConfig, type ClientConfig } from './config/config.ts';
import { previewDevSecrets } from './config/dev-secrets.ts';
import { checkLaunch } from './launcher.ts';

const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
const mode = (config: ClientConfig): string => (config.production ? 'production' : 'development');
const generated = (files: readonly (string | undefined)[]): string[] => {
  const pending = files.filter((file): file is string => file !== undefined);
  return pending.length ? [`development keys would be generated at first start in ${pending.join(', ')}`] : [];
};

const env = process.env;
process.exitCode =
  env.CLIENT_ID !== undefined
    ? runConfigCheck(
        env.CLIENT_ID,
        () => {
          let wouldCreate: string | undefined;
          const config = loadConfig(env, {
            devSecrets: (dataDir, clientId) => {
              const preview = previewDevSecrets(dataDir, clientId);
              wouldCreate = preview.wouldCreate;
              return preview.secrets;
            },
          });
          return [
            mode(config),
            `URL ${config.publicUrl}`,
            `issuer ${config.issuer}`,
            `API ${config.apiUrl}`,
            `database ${redactUrl(config.databaseUrl)}`,
            ...generated([wouldCreate]),
          ];
        },
        io,
      )
    : runConfigCheck(
        'client',
        () => {
          const apps = checkLaunch(env);
          const [first] = apps;
          return [
            mode(first!.config),
            `issuer ${first!.config.issuer}`,
            `API ${first!.config.apiUrl}`,
            ...apps.map(({ config }) => `${config.clientId} ${config.publicUrl}, database ${redactUrl(config.databaseUrl)}`),
            ...generated(apps.map((app) => app.wouldCreate)),
          ];
        },
        io,
      );
