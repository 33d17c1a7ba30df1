import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Engine } from './open-database.ts';

/** A throw-away database for one test file. */
export interface TestDatabase {
  readonly engine: Engine;
  readonly url: string;
  drop(): Promise<void>;
}

/** The engines every storage suite runs on. */
export const TEST_ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** Server used for PostgreSQL tests; `TEST_POSTGRES_URL` overrides it. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Creates an empty database on the given engine: a file in a temporary folder for SQLite,
 * a database with a random name for PostgreSQL. A missing PostgreSQL server is an error,
 * never a silent skip.
 */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
    return {
      engine,
      url: `sqlite:${join(dir, 'test.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is required for the storage tests but ${TEST_POSTGRES_URL} did not answer (set TEST_POSTGRES_URL): ${String(error)}`,
    );
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
