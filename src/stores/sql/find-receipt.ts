import { sql } from 'kysely';
import type { Receipt } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import { toReceipt } from './receipt-row.js';
import { RECEIPTS_TABLE } from './receipts-table.js';
import { keyValues, type SqlContext, statement } from './sql-context.js';

/**
 * Reads the receipt of `key`, or `null`. With `locking` inside a caller's transaction the dialect's locking
 * read is used, so a claim that just lost to a committed winner sees the winner's row.
 */
export async function findReceipt(ctx: SqlContext, key: RequestKey, locking = false): Promise<Receipt | null> {
  const { provider, externalId } = keyValues(ctx, key);
  const lock = locking && ctx.inTransaction ? ctx.dialect.lockingReadClause : null;
  const row = await statement(ctx, () =>
    ctx.db
      .selectFrom(RECEIPTS_TABLE)
      .selectAll()
      .where('provider', '=', provider)
      .where('external_id', '=', externalId)
      .$if(lock !== null, (query) => query.modifyEnd(sql.raw(lock!)))
      .executeTakeFirst(),
  );
  return row ? toReceipt(row) : null;
}
