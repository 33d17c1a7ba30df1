/**
 * `authctl db ...`: the database schema as its own deployment step. Rules:
 * - `db migrate` applies every pending migration and names them; several instances or
 *   operators running it at once are safe (a PostgreSQL advisory lock, see @gatehouse/db);
 * - `db status` lists the pending migrations and exits 0 either way (scripts read `--json`);
 * - servers started with AUTH_MIGRATE=manual (the production default) refuse a schema that is behind.
 */
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, pendingMigrations } from '@gatehouse/db';
import { authMigrations } from '../storage/migrations.ts';
import { parseCommand, UsageError } from './args.ts';
import type { CliContext } from './cli-context.ts';

export const DB_USAGE = [
  '  db migrate [--json]                  apply pending database migrations (run before starting new versions)',
  '  db status [--json]                   list pending database migrations',
];

export async function runDbCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  if (sub !== 'migrate' && sub !== 'status') {
    throw new UsageError(sub ? `unknown command "db ${sub}"` : 'db: missing subcommand (migrate, status)');
  }
  const { values } = parseCommand(args, { command: `db ${sub}`, positionals: [], options: { json: { type: 'boolean' } } });
  const database = openDatabase(ctx.config.databaseUrl);
  try {
    const db = database.db as Kysely<unknown>;
    if (sub === 'status') {
      const pending = await pendingMigrations(db, 'auth', authMigrations);
      if (values.json) ctx.printJson({ pending });
      else ctx.print(pending.length ? `pending migrations: ${pending.join(', ')}` : 'the auth schema is up to date');
      return;
    }
    const applied = await migrateToLatest(db, 'auth', authMigrations);
    if (values.json) ctx.printJson({ applied });
    else ctx.print(applied.length ? `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}` : 'the auth schema is already up to date');
  } finally {
    await database.close();
  }
}
