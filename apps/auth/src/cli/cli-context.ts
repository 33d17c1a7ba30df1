import type { Database } from '@gatehouse/db';
import type { AuthConfig } from '../config/config.ts';
import { createAccountStore, type AccountStore } from '../accounts/account-store.ts';
import { createClientStore, type ClientStore } from '../clients/client-store.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import { createKeyStore, type KeyStore } from '../keys/key-store.ts';
import { createDeviceStore, type DeviceStore } from '../devices/device-store.ts';
import { createRecoveryCodeStore, type RecoveryCodeStore } from '../recovery/recovery-code-store.ts';
import { createRevocationStore, type RevocationStore } from '../revocation/revocation-store.ts';
import { openAuthDatabase } from '../storage/open-auth-database.ts';
import type { AuthSchema } from '../storage/schema.ts';

export interface CliIo {
  /** Everything read from standard input (only read by main.ts when a command needs it). */
  stdin: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
  /** Epoch ms; the system clock unless a test pins it. */
  clock?: () => number;
}

export interface CliStores {
  accounts: AccountStore;
  clients: ClientStore;
  keys: KeyStore;
  devices: DeviceStore;
  recoveryCodes: RecoveryCodeStore;
  revocations: RevocationStore;
}

/** What a command needs; the database is opened on first use so usage errors never touch it. */
export interface CliContext {
  io: CliIo;
  config: AuthConfig;
  now(): number;
  stores(): Promise<CliStores>;
  /** Writes one line to stdout. */
  print(line: string): void;
  /** Writes a value as pretty JSON to stdout. */
  printJson(value: unknown): void;
}

export function createCliContext(io: CliIo, config: AuthConfig): { context: CliContext; close(): Promise<void> } {
  const clock = io.clock ?? Date.now;
  let database: Promise<Database<AuthSchema>> | undefined;
  const context: CliContext = {
    io,
    config,
    now: clock,
    async stores() {
      database ??= openAuthDatabase(config.databaseUrl, { migrate: config.migrate });
      const { db } = await database;
      const box = createSecretBox(config.encryptionKey);
      return {
        accounts: createAccountStore(db, box, clock),
        clients: createClientStore(db, box, clock),
        keys: createKeyStore(db, box),
        devices: createDeviceStore(db, clock),
        recoveryCodes: createRecoveryCodeStore(db, clock),
        revocations: createRevocationStore(db, clock),
      };
    },
    print: (line) => io.stdout(`${line}\n`),
    printJson: (value) => io.stdout(`${JSON.stringify(value, null, 2)}\n`),
  };
  return {
    context,
    async close() {
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
