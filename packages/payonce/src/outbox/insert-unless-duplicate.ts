import type { InsertQueryBuilder, InsertResult } from 'kysely';
import { isDuplicateKeyError } from '../stores/sql/driver-error.js';
import type { SqlDialect } from '../stores/sql/sql-dialect.js';

/**
 * Runs ONE insert relying on a unique index and says whether a row was inserted: `ON CONFLICT DO NOTHING` where
 * the dialect declares it (PostgreSQL, SQLite: a raised duplicate would abort a PostgreSQL transaction), else a
 * plain INSERT whose duplicate-key error means "exists" (MySQL: rolls back only the statement). Safe inside a
 * caller's transaction. Other errors propagate.
 */
export async function insertUnlessDuplicate<DB, TB extends keyof DB>(
  dialect: SqlDialect,
  query: InsertQueryBuilder<DB, TB, InsertResult>,
): Promise<boolean> {
  return insertedUnlessDuplicate(async () => {
    const result =
      dialect.claimInsert === 'on-conflict-do-nothing'
        ? await query.onConflict((conflict) => conflict.doNothing()).executeTakeFirst()
        : await query.executeTakeFirst();
    return result.numInsertedOrUpdatedRows;
  });
}

/**
 * {@link insertUnlessDuplicate} for an insert already compiled with the dialect's `ON CONFLICT DO NOTHING` (when it
 * declares one): `run` sends it and answers the rows it inserted; a duplicate-key error (MySQL) means "exists".
 */
export async function insertedUnlessDuplicate(run: () => Promise<bigint | undefined>): Promise<boolean> {
  try {
    return ((await run()) ?? 0n) > 0n;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}
