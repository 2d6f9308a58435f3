/**
 * `payonce/store-kit`: what only the author of a `Store` needs — the requests a store answers (insert a claim, take
 * over a stale one, finish, purge), the receipt a first claim writes, the injective text id of a request key, and
 * the in-process waiters behind `watchReceipt`. An application that only uses a store imports nothing from here.
 * The contract every store must keep is written down in docs/design.md §3 and run against every backend by
 * test/contract.
 * @see docs/design.md §3.
 */
export { firstClaimReceipt } from '../core/receipt.js';
export type {
  FinishRequest,
  InsertClaimRequest,
  InsertClaimResult,
  PurgeCutoffs,
  ReceiptWatch,
  TakeoverRequest,
} from '../core/store.js';
export { receiptIdOf } from './receipt-id.js';
export { ReceiptWaiters } from './receipt-waiters.js';
