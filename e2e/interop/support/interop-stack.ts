/**
 * What a test file of the interop suite knows of the shared stack (global-setup.ts), and the
 * operator's CLI run against it. Clients are registered the way an operator registers them:
 * `authctl client add ... --json`, with the server's own environment.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_API_AUDIENCE } from '@gatehouse/contracts';
import { inject } from 'vitest';
import { REPO_ROOT } from '../../support/stack.ts';

export interface InteropStack {
  authUrl: string;
  apiUrl: string;
  dataDir: string;
  /** The authorization server's environment (authctl needs the same). */
  authEnv: Record<string, string>;
}

/** The audience of the API's access tokens (the default of both the auth server and the API). */
export const API_AUDIENCE = DEFAULT_API_AUDIENCE;

export const interopStack = (): InteropStack => inject('interopStack');

/** Runs `authctl <args>`; answers its standard output, throws with its output when it fails. */
export function authctl(stack: InteropStack, args: string[], stdin = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), ...args],
      { cwd: stack.dataDir, env: stack.authEnv },
      (error, stdout, stderr) => (error ? reject(new Error(`authctl ${args.join(' ')} failed: ${stderr}${stdout}`)) : resolve(stdout)),
    );
    child.stdin!.end(stdin);
  });
}

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
}

/** `authctl client add <clientId> <options> --json`: the new client and its secret (confidential ones). */
export async function addClient(stack: InteropStack, clientId: string, options: string[]): Promise<RegisteredClient> {
  return JSON.parse(await authctl(stack, ['client', 'add', clientId, ...options, '--json'])) as RegisteredClient;
}
