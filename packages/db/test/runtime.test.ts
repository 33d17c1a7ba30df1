import { describe, expect, it } from 'vitest';

// The repo pins Node 24 (the `node` devDependency puts it first on the PATH of every pnpm script):
// oidc-provider 9 and node:sqlite need it. This fails when a script runs on the system Node 20.
describe('runtime', () => {
  it('runs on Node 24 or newer', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(24);
  });
});
