import { sql, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { ReceiptsDatabase } from './receipts-table.js';

type ReceiptsUpdate = UpdateQueryBuilder<ReceiptsDatabase, 'payonce_receipts', 'payonce_receipts', UpdateResult>;

/**
 * The fencing condition shared by completion and failure: the row of (`provider`, `externalId`) is still
 * `processing` at the caller's `attempt`. A claim that was taken over no longer matches, so its late result
 * changes nothing. Use with `.$call(claimHeld(p))` on an UPDATE of the receipts table.
 * @see docs/design.md §3 "Fencing".
 */
export function claimHeld(
  p: Readonly<Record<'provider' | 'externalId' | 'attempt', never>>,
): (query: ReceiptsUpdate) => ReceiptsUpdate {
  return (query) =>
    query
      .where('provider', '=', p.provider)
      .where('external_id', '=', p.externalId)
      .where('status', '=', sql.lit('processing'))
      .where('attempts', '=', p.attempt);
}
