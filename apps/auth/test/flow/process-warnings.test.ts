/**
 * Nothing but JSON lines: starting and serving emits no process warning (Node prints those on
 * stderr as plain text, e.g. oidc-provider's DeprecationWarning for its `.app` getter).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestAuthServer } from '../support/flow.ts';

const warnings: string[] = [];
const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
let server: TestAuthServer;

beforeAll(async () => {
  process.on('warning', onWarning);
  server = await startServer();
});
afterAll(async () => {
  process.off('warning', onWarning);
  await server.close();
});

it('starts and answers without a process warning', async () => {
  expect((await fetch(`${server.issuer}/.well-known/openid-configuration`)).status).toBe(200);
  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings).toEqual([]);
});
