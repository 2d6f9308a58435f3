import type { StoreSchemaMissing } from '../../core/errors.js';
import type { Receipt, StoredResponse } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import type { FinishRequest, InsertClaimRequest, InsertClaimResult, Store, TakeoverRequest } from '../../core/store.js';
import { completeReceipt } from './complete-receipt.js';
import { failReceipt } from './fail-receipt.js';
import { findReceipt } from './find-receipt.js';
import { takeGroupClaim } from './group-claims.js';
import { insertClaim } from './insert-claim.js';
import { purgeBatch } from './purge-batch.js';
import { receiptTraceOf, recordReceiptTrace } from './receipt-trace.js';
import { renewClaim } from './renew-claim.js';
import { schemaMissingOf } from './schema-missing.js';
import type { SqlContext } from './sql-context.js';
import { takeover } from './takeover.js';

/**
 * The `Store` steps bound to one executor: a store's pool, or a caller's open transaction (then every
 * statement commits or rolls back with the caller, and none is retried). Returned by `withTransaction`.
 */
export class SqlReceipts implements Store {
  readonly name: string;
  /** False: this view already runs inside a transaction and cannot open another. */
  readonly supportsTransactions = false;
  private readonly ctx: SqlContext;

  constructor(ctx: SqlContext) {
    this.ctx = ctx;
    this.name = ctx.dialect.name;
  }

  insertClaim(request: InsertClaimRequest): Promise<InsertClaimResult> {
    // In a group transaction whose claims were made together (`claimForGroup`), the key's claim is answered from it.
    const claimed = this.ctx.inTransaction ? takeGroupClaim(this.ctx, request) : null;
    return claimed === null ? insertClaim(this.ctx, request) : Promise.resolve(claimed);
  }

  takeover(request: TakeoverRequest): Promise<Receipt | null> {
    return takeover(this.ctx, request);
  }

  complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean> {
    return completeReceipt(this.ctx, request);
  }

  renewClaim(request: FinishRequest): Promise<boolean> {
    return renewClaim(this.ctx, request);
  }

  fail(request: FinishRequest & { readonly error: string }): Promise<boolean> {
    return failReceipt(this.ctx, request);
  }

  find(key: RequestKey): Promise<Receipt | null> {
    return findReceipt(this.ctx, key);
  }

  recordReceiptTrace(key: RequestKey, traceContext: string): Promise<void> {
    return recordReceiptTrace(this.ctx, key, traceContext);
  }

  receiptTraceOf(key: RequestKey): Promise<string | null> {
    return receiptTraceOf(this.ctx, key);
  }

  purgeBatch(beforeMs: number, limit: number, provider?: string, abandonedBeforeMs?: number): Promise<number> {
    return purgeBatch(this.ctx, { beforeMs, abandonedBeforeMs: abandonedBeforeMs ?? null }, limit, provider);
  }

  /** `StoreSchemaMissing` when `error` says payonce's table or schema does not exist, else `null`. */
  schemaError(error: unknown): StoreSchemaMissing | null {
    return schemaMissingOf(error, this.ctx.dialect.name, this.ctx.schema);
  }
}
