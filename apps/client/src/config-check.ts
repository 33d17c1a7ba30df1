/**
 * `pnpm --filter @gatehouse/client config:check`: validates the relying party's environment as
 * start-up would, without opening the database or listening (packages/config config-check.ts).
 * Rules:
 * - with CLIENT_ID set, the one app `dist/main.js` would start from this environment;
 * - without it, app-one and app-two as `pnpm start` (the launcher) would start them, from their
 *   APP_ONE_* / APP_TWO_* variables;
 * - each app prints its start-up lines when refused, or `<client id>: configuration ok (…)`;
 *   the exit code is 1 when any is refused. Never prints a secret.
 */
import { runConfigCheck } from '@gatehouse/config';
import { redactUrl } from '@gatehouse/db';
import { loadConfig } from './config/config.ts';
import { APPS, childEnv, checkLauncherEnv } from './launcher.ts';

const io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
const summary = (env: NodeJS.ProcessEnv): string[] => {
  const config = loadConfig(env);
  return [
    config.production ? 'production' : 'development',
    `URL ${config.publicUrl}`,
    `issuer ${config.issuer}`,
    `API ${config.apiUrl}`,
    `database ${redactUrl(config.databaseUrl)}`,
  ];
};

const env = process.env;
const codes =
  env.CLIENT_ID !== undefined
    ? [runConfigCheck(env.CLIENT_ID, () => summary(env), io)]
    : APPS.map((app) =>
        runConfigCheck(
          app.clientId,
          () => {
            checkLauncherEnv(env, [app]);
            return summary(childEnv(app, env));
          },
          io,
        ),
      );
process.exitCode = Math.max(...codes);
