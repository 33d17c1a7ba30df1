/**
 * Which keys the sealed secrets are under, and whether the keyring opens them all. Rules:
 * - a value naming its key (`v2.<key id>.…`) is counted by that id in SQL, without reading or
 *   decrypting it: its key is in the ring exactly when the id is;
 * - a legacy value (`v1.…`, sealed before key ids) names no key: it is tried against the ring,
 *   and one that no key opens counts as under an unknown key;
 * - the server checks this at start (checkSealedSecrets): secrets it cannot open stop it with
 *   one line (SealedSecretsError `sealed_unreadable`) naming each column, how many of its values
 *   cannot be decrypted and the key ids they need, and what to do; never a SecretBoxError stack.
 */
import { sql, type Kysely } from 'kysely';
import { sealedKeyId, type SecretBox } from '../crypto/secret-box.ts';
import { CodedError } from '../errors/coded-error.ts';
import type { AuthSchema } from '../storage/schema.ts';
import { columnName, forEachSealed, SEALED_COLUMNS, type SealedColumn } from './sealed-columns.ts';

/** The legacy form's pseudo key id in surveys: sealed before key ids existed. */
export const LEGACY = 'v1';

export interface ColumnSurvey {
  column: SealedColumn;
  /** Every value of the column (0: not counted). */
  total: number;
  /** Values per key id (LEGACY for legacy values the ring opens). */
  byKey: Map<string, number>;
  /** Values no key of the ring opens, per key id they name (LEGACY: legacy values). */
  unreadable: Map<string, number>;
}

export class SealedSecretsError extends CodedError<'sealed_unreadable'> {}

const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);

export async function surveySealed(db: Kysely<AuthSchema>, box: SecretBox): Promise<ColumnSurvey[]> {
  const ring = new Set(box.keyIds);
  const surveys: ColumnSurvey[] = [];
  for (const c of SEALED_COLUMNS) {
    const survey: ColumnSurvey = { column: c, total: 0, byKey: new Map(), unreadable: new Map() };
    const column = sql.ref(c.column);
    const { rows } = await sql<{ prefix: string; n: number | string }>`select substr(${column}, 1, 11) as "prefix", count(*) as "n" from ${sql.table(c.table)}
      where substr(${column}, 1, 3) = 'v2.' group by substr(${column}, 1, 11)`.execute(db);
    for (const row of rows) {
      const keyId = row.prefix.slice(3);
      const n = Number(row.n);
      survey.total += n;
      add(ring.has(keyId) ? survey.byKey : survey.unreadable, keyId, n);
    }
    await forEachSealed(db, c, { batchSize: 500, legacyOnly: true }, async (legacy) => {
      for (const { sealed } of legacy) {
        survey.total += 1;
        if (sealedKeyId(sealed) !== null) add(survey.unreadable, 'malformed', 1);
        else if (opens(box, sealed)) add(survey.byKey, LEGACY, 1);
        else add(survey.unreadable, LEGACY, 1);
      }
    });
    surveys.push(survey);
  }
  return surveys;
}

function opens(box: SecretBox, sealed: string): boolean {
  try {
    box.open(sealed);
    return true;
  } catch {
    return false;
  }
}

/** "key X" / "keys X, Y", legacy values named as such. */
function keyNames(ids: Iterable<string>): string {
  const named = [...ids].map((id) => (id === LEGACY ? 'a key not in the ring (sealed before key ids)' : id === 'malformed' ? 'no key (not a sealed value)' : `key ${id}`));
  return named.join(', ');
}

/**
 * One line saying which sealed secrets the ring cannot open and what to do, or undefined when it
 * opens them all.
 */
export function unreadableProblem(surveys: readonly ColumnSurvey[], box: SecretBox): string | undefined {
  const bad = surveys.filter((s) => s.unreadable.size > 0);
  if (bad.length === 0) return undefined;
  const parts = bad.map((s) => {
    const n = [...s.unreadable.values()].reduce((a, b) => a + b, 0);
    return `${n}${s.total > 0 ? ` of ${s.total}` : ''} ${s.column.holds} (${columnName(s.column)}) under ${keyNames(s.unreadable.keys())}`;
  });
  return (
    `cannot decrypt ${parts.join('; ')}: the keyring AUTH_ENCRYPTION_KEYS holds ${box.keyIds.map((id) => `key ${id}`).join(', ')}. ` +
    'Add the key that sealed them to AUTH_ENCRYPTION_KEYS (after the key that seals), or, if it is lost, run `authctl secrets recover-lost-key` (see apps/auth/README.md, Secrets at rest)'
  );
}

/** At start: refuses a keyring that cannot open every sealed secret (SealedSecretsError, one line). */
export async function checkSealedSecrets(db: Kysely<AuthSchema>, box: SecretBox): Promise<void> {
  const problem = unreadableProblem(await surveySealed(db, box), box);
  if (problem) throw new SealedSecretsError('sealed_unreadable', problem);
}

