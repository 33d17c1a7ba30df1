/**
 * The operator CLI, callable in-process. Rules:
 * - it reads the same configuration as the server (database, encryption key), so it works
 *   against a running server's data;
 * - every failure is one line on stderr, `authctl: error: ...`, exit 2 for usage errors and 1
 *   for everything else; never a stack trace, never a secret.
 */
import { DatabaseUrlError, MigrationError, SchemaBehindError } from '@gatehouse/db';
import { AccountError } from '../accounts/account-store.ts';
import { PasswordPolicyError } from '../accounts/password-policy.ts';
import { ClientRegistryError } from '../clients/client-store.ts';
import { ConfigError, loadConfig } from '../config/config.ts';
import { SecretBoxError } from '../crypto/secret-box.ts';
import { UsageError } from './args.ts';
import { CliError, createCliContext, type CliContext, type CliIo } from './cli-context.ts';
import { CLIENT_USAGE, runClientCommand } from './client-commands.ts';
import { KEYS_USAGE, runKeyCommand } from './key-commands.ts';
import { runUserCommand, USER_USAGE } from './user-commands.ts';
import { DB_USAGE, runDbCommand } from './db-commands.ts';
import { DEVICE_SUBCOMMANDS, DEVICE_USAGE, runDeviceCommand } from './device-commands.ts';
import { PASSKEY_USAGE, runPasskeyCommand } from './passkey-commands.ts';
import { runScopeCommand, SCOPE_USAGE } from './scope-commands.ts';
import { AUDIT_USAGE, runAuditCommand } from './audit-commands.ts';
import { runSecretsCommand, SECRETS_USAGE } from './secrets-commands.ts';
import { CONFIG_USAGE, runConfigCommand } from './config-commands.ts';
import { IDP_USAGE, runIdpCommand } from './idp-commands.ts';
import { LINK_SUBCOMMANDS, LINK_USAGE, runLinkCommand } from './link-commands.ts';
import { AccountLinkError } from '../federation/account-link-store.ts';
import { OperatorLinkError } from '../federation/operator-links.ts';
import { IdentityProviderError } from '../federation/identity-provider.ts';

export type { CliIo } from './cli-context.ts';

export const USAGE = [
  'usage: authctl <command> [options]',
  '',
  'Manages the Gatehouse authorization server\'s users, clients, upstream identity providers and signing keys.',
  'Uses the server\'s configuration (AUTH_DATABASE_URL, AUTH_DATA_DIR, AUTH_ENCRYPTION_KEYS or AUTH_ENCRYPTION_KEY) and works while it runs.',
  '',
  'commands:',
  ...USER_USAGE,
  ...LINK_USAGE,
  ...DEVICE_USAGE,
  ...PASSKEY_USAGE,
  ...CLIENT_USAGE,
  ...IDP_USAGE,
  ...SCOPE_USAGE,
  ...KEYS_USAGE,
  ...AUDIT_USAGE,
  ...SECRETS_USAGE,
  ...DB_USAGE,
  ...CONFIG_USAGE,
  '  help',
  '',
  'example: printf "%s" "$PASSWORD" | authctl user add alice --email alice@example.com --name "Alice" --groups admins --password-stdin',
].join('\n');

const GROUPS = {
  user: (sub: string | undefined, args: readonly string[], ctx: CliContext) =>
    sub === 'passkeys'
      ? runPasskeyCommand(args, ctx)
      : sub !== undefined && LINK_SUBCOMMANDS.has(sub)
        ? runLinkCommand(sub, args, ctx)
      : sub !== undefined && DEVICE_SUBCOMMANDS.has(sub)
        ? runDeviceCommand(sub, args, ctx)
        : runUserCommand(sub, args, ctx),
  client: runClientCommand,
  idp: runIdpCommand,
  scope: runScopeCommand,
  keys: runKeyCommand,
  // No subcommand: everything after `audit` is its flags.
  audit: (sub: string | undefined, args: readonly string[], ctx: CliContext) => runAuditCommand(sub === undefined ? args : [sub, ...args], ctx),
  db: runDbCommand,
  secrets: runSecretsCommand,
} as const;

/** Runs one command; resolves to the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [group, sub, ...rest] = argv;
  if (group === undefined) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  if (group === 'help' || group === '--help' || group === '-h') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  // Checks the configuration itself, so it runs before (and instead of) loading it for a command.
  if (group === 'config') {
    if (sub === 'help' || sub === '--help' || sub === '-h') {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    try {
      return runConfigCommand(sub, rest, io);
    } catch (error) {
      return fail(io, error);
    }
  }
  const run = Object.hasOwn(GROUPS, group) ? GROUPS[group as keyof typeof GROUPS] : undefined;
  if (!run) return fail(io, new UsageError(`unknown command "${group}"`));
  if (sub === 'help' || sub === '--help' || sub === '-h') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  let cli: ReturnType<typeof createCliContext> | undefined;
  try {
    cli = createCliContext(io, loadConfig(io.env));
    await run(sub, rest, cli.context);
    return 0;
  } catch (error) {
    return fail(io, error);
  } finally {
    await cli?.close();
  }
}

const EXPECTED_ERRORS = [CliError, AccountError, PasswordPolicyError, ClientRegistryError, IdentityProviderError, AccountLinkError, OperatorLinkError, ConfigError, SecretBoxError, DatabaseUrlError, MigrationError, SchemaBehindError];

function fail(io: CliIo, error: unknown): number {
  if (error instanceof UsageError) {
    io.stderr(`authctl: error: ${oneLine(error.message)} (run "authctl help" for usage)\n`);
    return 2;
  }
  const expected = EXPECTED_ERRORS.some((type) => error instanceof type);
  // Some system errors (e.g. a refused connection to every address) carry only a code.
  const message = error instanceof Error ? error.message || String((error as NodeJS.ErrnoException).code ?? error.name) : String(error);
  io.stderr(`authctl: error: ${expected ? '' : 'unexpected failure: '}${oneLine(message)}\n`);
  return 1;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
