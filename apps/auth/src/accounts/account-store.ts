/**
 * User accounts. Rules:
 * - usernames are 1–64 characters of [a-zA-Z0-9._@-], compared case-insensitively and stored lower-cased;
 * - email must be a valid address, name 1–128 printable characters, groups 1–64 characters without
 *   whitespace, commas or control characters;
 * - the TOTP secret is stored sealed; setting or clearing it resets the last accepted time step;
 * - consumeTotpStep is one conditional UPDATE, so two instances cannot accept the same code;
 * - a disabled account (disabledAt set) keeps its data but cannot sign in (see disable-account.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { z } from 'zod';
import { precompile } from '@gatehouse/db';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { AccountsTable, AuthSchema } from '../storage/schema.ts';
import { CodedError } from '../errors/coded-error.ts';

export interface Account {
  id: string;
  username: string;
  email: string;
  name: string;
  groups: string[];
  passwordHash: string;
  totpEnrolled: boolean;
  createdAt: number;
  /** Epoch ms when an operator disabled the account, or null. */
  disabledAt: number | null;
}

export interface AccountStore {
  /** Throws AccountError `duplicate_username` or `invalid_input`. */
  create(input: { username: string; email: string; name: string; groups: string[]; passwordHash: string }): Promise<Account>;
  findByUsername(username: string): Promise<Account | undefined>;
  findById(id: string): Promise<Account | undefined>;
  /** The accounts whose e-mail address is `email`, ignoring case (forgotten-password requests). */
  findByEmail(email: string): Promise<Account[]>;
  list(): Promise<Account[]>;
  /**
   * One page of accounts ordered by username, after the username `after` (keyset paging);
   * `search` matches a substring of the username or the email, ignoring case.
   */
  page(query: { search?: string; after?: string; limit: number }): Promise<Account[]>;
  /** Changes the profile and groups (absent fields are kept). Throws `invalid_input`, `unknown_user`. */
  update(id: string, changes: { email?: string; name?: string; groups?: string[] }): Promise<Account>;
  remove(username: string): Promise<boolean>;
  /** Disables (epoch ms) or re-enables (null) an account; the updated account, or undefined when unknown. */
  setDisabled(username: string, disabledAt: number | null): Promise<Account | undefined>;
  /** Throws AccountError `unknown_user`. */
  setPassword(id: string, passwordHash: string): Promise<void>;
  /** Stores the secret sealed (null removes it) and resets the last used step. Throws `unknown_user`. */
  setTotpSecret(id: string, secret: string | null): Promise<void>;
  getTotpSecret(id: string): Promise<string | undefined>;
  /** Atomically records use of a TOTP time step; false when this step or a later one was already used (replay). */
  consumeTotpStep(id: string, step: number): Promise<boolean>;
}

export type AccountErrorCode = 'duplicate_username' | 'unknown_user' | 'invalid_input';

export class AccountError extends CodedError<AccountErrorCode> {}

const printable = /^[^\p{Cc}]+$/u;
const Username = z
  .string()
  .regex(/^[a-zA-Z0-9._@-]{1,64}$/, 'username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"');
const NewAccount = z.object({
  username: Username,
  email: z.email('email must be a valid email address').max(254, 'email must be at most 254 characters'),
  name: z
    .string()
    .trim()
    .min(1, 'name must not be empty')
    .max(128, 'name must be at most 128 characters')
    .regex(printable, 'name must not contain control characters'),
  groups: z.array(z.string().regex(/^[^\s,\p{Cc}]{1,64}$/u, 'each group must be 1-64 characters without spaces or commas')),
  passwordHash: z.string().min(1, 'passwordHash must not be empty'),
});

const ProfileChanges = NewAccount.pick({ email: true, name: true, groups: true }).partial();

/** A LIKE pattern matching `text` anywhere, lower-cased, with backslash, `%` and `_` escaped (ESCAPE backslash). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An account as stored, as the store returns it. */
export function accountFromRow(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    name: row.name,
    groups: JSON.parse(row.groups) as string[],
    passwordHash: row.password_hash,
    totpEnrolled: row.totp_secret_sealed !== null,
    createdAt: Number(row.created_at),
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : Number(row.disabled_at),
  };
}

/** `clock` (epoch ms) stamps createdAt; it defaults to the system time. */
export function createAccountStore(db: Kysely<AuthSchema>, box: SecretBox, clock: () => number = Date.now): AccountStore {
  // Run by every token request for a user (find-account.ts) and every admin API request: compiled once.
  const findByIdQuery = precompile(db, ['id'], (v) => db.selectFrom('accounts').selectAll().where('id', '=', v.id));
  // Run by every password step (interactions/login.ts).
  const findByUsernameQuery = precompile(db, ['username'], (v) => db.selectFrom('accounts').selectAll().where('username', '=', v.username));
  const toAccount = accountFromRow;

  return {
    async create(input) {
      const parsed = NewAccount.safeParse(input);
      if (!parsed.success) throw new AccountError('invalid_input', parsed.error.issues[0]!.message);
      const value = parsed.data;
      const row = {
        id: randomUUID(),
        username: value.username.toLowerCase(),
        email: value.email,
        name: value.name,
        groups: JSON.stringify([...new Set(value.groups)]),
        password_hash: value.passwordHash,
        totp_secret_sealed: null,
        totp_last_step: null,
        created_at: clock(),
        disabled_at: null,
      };
      const result = await db
        .insertInto('accounts')
        .values(row)
        .onConflict((oc) => oc.column('username').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) {
        throw new AccountError('duplicate_username', `username "${row.username}" is already taken`);
      }
      return toAccount(row);
    },

    async findByUsername(username) {
      const row = (await findByUsernameQuery({ username: username.toLowerCase() })).rows[0];
      return row && toAccount(row);
    },

    async findById(id) {
      const row = (await findByIdQuery({ id })).rows[0];
      return row && toAccount(row);
    },

    async findByEmail(email) {
      const rows = await db.selectFrom('accounts').selectAll().where(sql<boolean>`lower(email) = ${email.toLowerCase()}`).orderBy('username').limit(10).execute();
      return rows.map(toAccount);
    },

    async list() {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('username').execute();
      return rows.map(toAccount);
    },

    async page({ search, after, limit }) {
      let query = db.selectFrom('accounts').selectAll().orderBy('username').limit(limit);
      if (after !== undefined) query = query.where('username', '>', after);
      if (search) {
        const pattern = containsPattern(search);
        query = query.where(sql<boolean>`(username like ${pattern} escape '\\' or lower(email) like ${pattern} escape '\\')`);
      }
      return (await query.execute()).map(toAccount);
    },

    async update(id, changes) {
      const parsed = ProfileChanges.safeParse(changes);
      if (!parsed.success) throw new AccountError('invalid_input', parsed.error.issues[0]!.message);
      const { email, name, groups } = parsed.data;
      const set = {
        ...(email !== undefined ? { email } : {}),
        ...(name !== undefined ? { name } : {}),
        ...(groups !== undefined ? { groups: JSON.stringify([...new Set(groups)]) } : {}),
      };
      if (Object.keys(set).length > 0) await db.updateTable('accounts').set(set).where('id', '=', id).execute();
      const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) throw new AccountError('unknown_user', `no account with id ${id}`);
      return toAccount(row);
    },

    async remove(username) {
      const result = await db.deleteFrom('accounts').where('username', '=', username.toLowerCase()).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async setDisabled(username, disabledAt) {
      const key = username.toLowerCase();
      await db.updateTable('accounts').set({ disabled_at: disabledAt }).where('username', '=', key).execute();
      const row = await db.selectFrom('accounts').selectAll().where('username', '=', key).executeTakeFirst();
      return row && toAccount(row);
    },

    async setPassword(id, passwordHash) {
      if (!passwordHash) throw new AccountError('invalid_input', 'passwordHash must not be empty');
      const result = await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', id).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw new AccountError('unknown_user', `no account with id ${id}`);
    },

    async setTotpSecret(id, secret) {
      const result = await db
        .updateTable('accounts')
        .set({ totp_secret_sealed: secret === null ? null : box.seal(secret), totp_last_step: null })
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw new AccountError('unknown_user', `no account with id ${id}`);
    },

    async getTotpSecret(id) {
      const row = await db.selectFrom('accounts').select('totp_secret_sealed').where('id', '=', id).executeTakeFirst();
      return row?.totp_secret_sealed ? box.open(row.totp_secret_sealed) : undefined;
    },

    async consumeTotpStep(id, step) {
      const result = await db
        .updateTable('accounts')
        .set({ totp_last_step: step })
        .where('id', '=', id)
        .where('totp_secret_sealed', 'is not', null)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
