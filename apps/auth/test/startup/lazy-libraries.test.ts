/**
 * Rules (bench/README.md, "Start-up"): the libraries only some servers use are loaded on first use,
 * not when the server module is imported:
 * - nodemailer with the first message over SMTP (mail/smtp-mailer.ts);
 * - openid-client with the first upstream sign-in (federation/upstream-client.ts);
 * - @simplewebauthn/server with the first passkey ceremony (passkeys/webauthn.ts).
 * The server module is imported in a fresh Node process that records every package it resolves.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
const RECORDER = `
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    const name = /node_modules\\/(?:\\.pnpm\\/[^/]+\\/node_modules\\/)?((?:@[^/]+\\/)?[^/]+)/.exec(result.url)?.[1];
    if (name) process.stdout.write('resolved ' + name + '\\n');
    return result;
  },
});`;

async function packagesResolvedByImporting(module: string): Promise<Set<string>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(RECORDER)}`, '--input-type=module', '-e', `await import(${JSON.stringify(module)}); console.log('imported');`], { timeout: 60_000 });
  expect(stdout.trimEnd().endsWith('imported')).toBe(true);
  return new Set([...stdout.matchAll(/^resolved (.+)$/gm)].map((match) => match[1]!));
}

describe('importing the server module', () => {
  it('loads the protocol library but none of the libraries loaded on first use', async () => {
    const resolved = await packagesResolvedByImporting(SERVER);
    expect(resolved.has('oidc-provider')).toBe(true);
    expect(resolved.has('nodemailer')).toBe(false);
    expect(resolved.has('openid-client')).toBe(false);
    expect(resolved.has('@simplewebauthn/server')).toBe(false);
  });
});
