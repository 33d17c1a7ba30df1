/**
 * One stack for the whole interop suite (vitest `globalSetup` of the `interop` project): the
 * authorization server and the API started as a user starts them (support/stack.ts), without the
 * project's own client apps, since every relying party here is an independent library. Each test
 * file reads the stack's addresses with `inject('interopStack')` and registers its own clients and
 * users with authctl, so files never depend on one another.
 */
import type { TestProject } from 'vitest/node';
import { startStack } from '../../support/stack.ts';
import type { InteropStack } from './interop-stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    interopStack: InteropStack;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await startStack({ name: 'interop', clientApps: false });
  project.provide('interopStack', { authUrl: stack.authUrl, apiUrl: stack.apiUrl, dataDir: stack.dataDir, authEnv: stack.authEnv });
  return () => stack.stop();
}
