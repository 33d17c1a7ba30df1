import type { Database } from '@gatehouse/db';
import type { AuthConfig } from '../config/config.ts';
import { createAuthServices, type AuthServices } from '../services.ts';
import { createUserAdmin, type UserAdmin } from '../admin/user-admin.ts';
import { createKeyAdmin, type KeyAdmin } from '../admin/key-admin.ts';
import { keyPolicy } from '../keys/key-policy.ts';
import { createClientAdmin, type ClientAdmin } from '../admin/client-admin.ts';
import { createScopeAdmin, type ScopeAdmin } from '../admin/scope-admin.ts';
import { createLogger, type Logger } from '../logging/logger.ts';
import { createAuditSink } from '../audit/audit-sink.ts';
import { createAuditor, type Auditor } from '../audit/auditor.ts';
import { createIdentityProviderService, type IdentityProviderService } from '../federation/identity-provider-service.ts';
import { createOperatorLinks, type OperatorLinks } from '../federation/operator-links.ts';
import { openAuthDatabase } from '../storage/open-auth-database.ts';
import type { AuthSchema } from '../storage/schema.ts';
import { createBackchannelLogout } from '../sessions/backchannel-logout.ts';
import { createLogoutTokenSigner } from '../sessions/logout-token.ts';
import { loadSigningJwks } from '../keys/signing-keys.ts';

export interface CliIo {
  /** Everything read from standard input (only read by main.ts when a command needs it). */
  stdin: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
  /** Epoch ms; the system clock unless a test pins it. */
  clock?: () => number;
  /** Where audit lines (JSON, one per line) go: stderr for the real command; dropped when absent. The events are stored in the audit trail either way. */
  log?: (line: string) => void;
}

/** What a command needs; the database is opened on first use so usage errors never touch it. */
export interface CliContext {
  io: CliIo;
  config: AuthConfig;
  now(): number;
  /** The server's own services (services.ts), built once on the opened database. */
  stores(): Promise<AuthServices>;
  /** That database, opened once (for commands that work on every table, as `secrets`). */
  database(): Promise<Database<AuthSchema>>;
  /** The user service (admin/user-admin.ts) on those services, auditing as the CLI operator. */
  userAdmin(): Promise<UserAdmin>;
  /** The key service (admin/key-admin.ts), auditing as the CLI operator. */
  keyAdmin(): Promise<KeyAdmin>;
  /** The client service (admin/client-admin.ts) on those services; changes are audited as the CLI operator. */
  clientAdmin(): Promise<ClientAdmin>;
  /** The access-policy service (admin/scope-admin.ts); changes are audited as the CLI operator. */
  scopeAdmin(): Promise<ScopeAdmin>;
  /** The identity-provider registry (federation/identity-provider-service.ts); changes are audited as the CLI operator. */
  identityProviders(): Promise<IdentityProviderService>;
  /** Links of local accounts to upstream users made by the operator (federation/operator-links.ts), audited as the CLI operator. */
  operatorLinks(): Promise<OperatorLinks>;
  /** Where the commands' log lines go (io.log). */
  logger: Logger;
  /** Where the commands' audit events go: a line on io.log and a row of the audit trail. */
  audit: Auditor;
  /** Writes one line to stdout. */
  print(line: string): void;
  /** Writes a value as pretty JSON to stdout. */
  printJson(value: unknown): void;
}

export function createCliContext(io: CliIo, config: AuthConfig): { context: CliContext; close(): Promise<void> } {
  const clock = io.clock ?? Date.now;
  let database: Promise<Database<AuthSchema>> | undefined;
  let services: Promise<AuthServices> | undefined;
  const logger: Logger = io.log
    ? createLogger({ level: config.logLevel, name: 'authctl', destination: { write: io.log } })
    : createLogger({ level: 'silent', name: 'authctl' });
  // Audit events of commands are stored like the server's (audit/audit-sink.ts), on the database
  // the command opened; close() waits for them.
  const auditSink = createAuditSink({ store: { append: async (records) => (await context.stores()).auditEvents.append(records) }, clock, logger });
  const audit = createAuditor({ logger, sink: auditSink });
  const context: CliContext = {
    io,
    config,
    now: clock,
    stores() {
      services ??= context.database().then((opened) => createAuthServices(config, opened, clock));
      return services;
    },
    database() {
      database ??= openAuthDatabase(config.databaseUrl, { migrate: config.migrate });
      return database;
    },
    async userAdmin() {
      const stores = await context.stores();
      // Sessions a command ends are announced like the server's; a failed first attempt is audited, and not retried after the command exits.
      const backchannelLogout = createBackchannelLogout({
        sign: createLogoutTokenSigner({ issuer: config.issuer, clients: stores.clients, signingKey: async () => (await loadSigningJwks(stores.keys, clock())).keys[0], clock }),
        fetch: globalThis.fetch,
        clock,
        audit,
        count: () => undefined,
        logger,
        retryDelaysMs: [],
      });
      return createUserAdmin({ ...stores, backchannelLogout, audit, clock, accessTokenTtl: config.accessTokenTtl });
    },
    async keyAdmin() {
      const { keys } = await context.stores();
      return createKeyAdmin({ keys, audit, clock, retainMs: keyPolicy(config).retainMs });
    },
    async clientAdmin() {
      const stores = await context.stores();
      return createClientAdmin({ clients: stores.clients, audit });
    },
    async scopeAdmin() {
      const { scopePolicies } = await context.stores();
      return createScopeAdmin({ policies: scopePolicies, apiScopes: config.api.scopes, audit });
    },
    async identityProviders() {
      const stores = await context.stores();
      return createIdentityProviderService({ store: stores.identityProviderStore, links: stores.accountLinks, audit });
    },
    async operatorLinks() {
      const stores = await context.stores();
      return createOperatorLinks({ accounts: stores.accounts, providers: stores.identityProviderStore, links: stores.accountLinks, audit });
    },
    logger,
    audit,
    print: (line) => io.stdout(`${line}\n`),
    printJson: (value) => io.stdout(`${JSON.stringify(value, null, 2)}\n`),
  };
  return {
    context,
    async close() {
      await auditSink.flush();
      if (!database) return;
      const opened = await database.catch(() => undefined);
      await opened?.close();
    },
  };
}

/** An operational failure reported as one line with exit code 1. */
export class CliError extends Error {
  readonly code = 'cli_failure';
}
