/**
 * `pnpm --filter @gatehouse/device-login-example login`: signs in with the device flow, then
 * calls the API with the access token and prints what it answered. Settings, read once here
 * (environment): GATEHOUSE_ISSUER (http://localhost:3000), GATEHOUSE_CLIENT_ID (gatehouse-cli),
 * GATEHOUSE_API_URL (http://localhost:4000), GATEHOUSE_SCOPE (openid profile movies:read).
 * The tokens are never printed; a failure is one line on stderr and exit code 1.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { deviceLogin, DeviceLoginError } from './device-login.ts';
import { promptText } from './prompt-text.ts';

const settings = {
  issuer: process.env.GATEHOUSE_ISSUER ?? 'http://localhost:3000',
  clientId: process.env.GATEHOUSE_CLIENT_ID ?? 'gatehouse-cli',
  apiUrl: process.env.GATEHOUSE_API_URL ?? 'http://localhost:4000',
  scope: process.env.GATEHOUSE_SCOPE ?? 'openid profile movies:read',
};

try {
  const tokens = await deviceLogin({
    ...settings,
    show: async (prompt) => {
      process.stdout.write(await promptText(prompt));
    },
    wait: (seconds) => sleep(seconds * 1000),
  });
  process.stdout.write(`Signed in (scope: ${tokens.scope ?? 'none'}).\n`);
  const response = await fetch(`${settings.apiUrl}/api/movies`, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
  process.stdout.write(`GET ${settings.apiUrl}/api/movies → ${response.status}\n${JSON.stringify(await response.json(), null, 2)}\n`);
} catch (error) {
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  const message = error instanceof DeviceLoginError ? `${error.code}: ${error.message}` : error instanceof Error ? `${error.message}${cause}` : String(error);
  process.stderr.write(`device login failed: ${message}\n`);
  process.exitCode = 1;
}
