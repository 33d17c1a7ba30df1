/**
 * Re-encrypting every sealed secret under the keyring's first key (`authctl secrets rekey`).
 * Rules:
 * - online: each value is opened and sealed again, then written only if the row still holds
 *   the value read (sealed-columns.ts replaceSealed, compare-and-set), so a secret a running
 *   server changed meanwhile (a rotation, a re-enrolment) is never overwritten with an old one;
 * - resumable: values already under the first key are not read again (idempotent: a second run
 *   finds nothing to do, an interrupted run continues where it stopped);
 * - a value no key of the ring opens is left as it is and counted per column and key id: the
 *   rekey goes on with the others and reports them at the end (sealed-survey.ts wording);
 * - `dryRun` writes nothing: it counts what a rekey would re-encrypt and what it could not;
 * - progress is reported after each batch, per column.
 */
import type { Kysely } from 'kysely';
import { sealedKeyId, type SecretBox } from '../crypto/secret-box.ts';
import type { AuthSchema } from '../storage/schema.ts';
import { countSealed, forEachSealed, replaceSealed, SEALED_COLUMNS, type SealedColumn } from './sealed-columns.ts';
import { LEGACY, unreadableProblem, type ColumnSurvey } from './sealed-survey.ts';

export interface RekeyProgress {
  column: SealedColumn;
  /** Values re-encrypted in this column so far (would be, with dryRun). */
  rekeyed: number;
  /** Values of this column still left when the run started. */
  remaining: number;
}

export interface RekeyColumnResult {
  column: SealedColumn;
  rekeyed: number;
  /** Changed by someone else between the read and the write: left alone (a rerun takes them). */
  skipped: number;
  unreadable: Map<string, number>;
}

export interface RekeyResult {
  keyId: string;
  columns: RekeyColumnResult[];
  rekeyed: number;
  skipped: number;
  unreadable: number;
  /** One line naming what could not be decrypted and what to do; undefined when nothing. */
  problem: string | undefined;
}

export interface RekeyDeps {
  db: Kysely<AuthSchema>;
  box: SecretBox;
  dryRun?: boolean;
  batchSize?: number;
  onProgress?: (progress: RekeyProgress) => void;
}

export async function rekeySecrets(deps: RekeyDeps): Promise<RekeyResult> {
  const { db, box } = deps;
  const batchSize = deps.batchSize ?? 200;
  const columns: RekeyColumnResult[] = [];
  for (const column of SEALED_COLUMNS) {
    const result: RekeyColumnResult = { column, rekeyed: 0, skipped: 0, unreadable: new Map() };
    const remaining = await countSealed(db, column, box.keyId);
    await forEachSealed(db, column, { batchSize, exceptKeyId: box.keyId }, async (rows) => {
      for (const row of rows) {
        let plaintext: string;
        try {
          plaintext = box.open(row.sealed);
        } catch {
          const keyId = sealedKeyId(row.sealed);
          const name = keyId === null ? LEGACY : (keyId ?? 'malformed');
          result.unreadable.set(name, (result.unreadable.get(name) ?? 0) + 1);
          continue;
        }
        if (deps.dryRun || (await replaceSealed(db, column, row, box.seal(plaintext)))) result.rekeyed += 1;
        else result.skipped += 1;
      }
      deps.onProgress?.({ column, rekeyed: result.rekeyed, remaining });
    });
    columns.push(result);
  }
  const sum = (pick: (c: RekeyColumnResult) => number) => columns.reduce((n, c) => n + pick(c), 0);
  const unreadableCount = (c: RekeyColumnResult) => [...c.unreadable.values()].reduce((a, b) => a + b, 0);
  // The survey's wording, without a total: a rekey reads only the values outside the first key.
  const surveys: ColumnSurvey[] = columns.map((c) => ({ column: c.column, total: 0, byKey: new Map(), unreadable: c.unreadable }));
  return {
    keyId: box.keyId,
    columns,
    rekeyed: sum((c) => c.rekeyed),
    skipped: sum((c) => c.skipped),
    unreadable: sum(unreadableCount),
    problem: unreadableProblem(surveys, box),
  };
}
