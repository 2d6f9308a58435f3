import { sql } from 'kysely';
import type { Receipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import { defineStatement } from './compiled-statement.js';
import { toReceipt } from './receipt-row.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, runStatement, type SqlContext } from './sql-context.js';

/** The plain read of one receipt by its key. */
const FIND_RECEIPT = defineStatement(['provider', 'externalId'], (db, p) =>
  db.selectFrom(RECEIPTS_TABLE).selectAll().where('provider', '=', p.provider).where('external_id', '=', p.externalId),
);

/** The same read with the dialect's locking clause appended (only used when the dialect has one). */
const FIND_RECEIPT_LOCKING = defineStatement(['provider', 'externalId'], (db, p, dialect) =>
  db
    .selectFrom(RECEIPTS_TABLE)
    .selectAll()
    .where('provider', '=', p.provider)
    .where('external_id', '=', p.externalId)
    .$if(dialect.lockingReadClause !== null, (query) => query.modifyEnd(sql.raw(dialect.lockingReadClause!))),
);

/**
 * Reads the receipt of `key`, or `null`. With `locking` inside a caller's transaction the dialect's locking
 * read is used, so a claim that just lost to a committed winner sees the winner's row.
 */
export async function findReceipt(ctx: SqlContext, key: RequestKey, locking = false): Promise<Receipt | null> {
  const { provider, externalId } = keyValues(ctx, key);
  const lock = locking && ctx.inTransaction && ctx.dialect.lockingReadClause !== null;
  const { rows } = await runStatement(ctx, lock ? FIND_RECEIPT_LOCKING : FIND_RECEIPT, { provider, externalId });
  const row = rows[0];
  return row ? toReceipt(row) : null;
}
