/**
 * payonce — exactly-once-in-effect payment processing. The root entry exports the core (guard, keys,
 * receipts, errors, clock, fingerprint), the `Store` port and the in-memory store. Backends are subpath
 * exports: `payonce/sqlite`, `payonce/postgres`, `payonce/mysql`, `payonce/redis`, and `payonce/sql` (the SQL
 * store base); what only a store author needs (the claim requests a store answers) is on `payonce/store-kit`.
 * @see docs/design.md §2–3.
 */
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export {
  ClaimLost,
  InvalidOption,
  InvalidRequestKey,
  NestedClaim,
  PayloadMismatch,
  PayonceError,
  type PayonceErrorCode,
  ReceiptCorrupted,
  RequestInProgress,
  StoreSchemaMissing,
  StoreUnavailable,
  TransactionEnded,
  TransactionsUnsupported,
} from './core/errors.js';
export { fingerprint, type PayloadBytes } from './core/fingerprint.js';
export type { GuardEventName, GuardEvents, GuardListener } from './core/guard-events.js';
export {
  type GuardOptions,
  type NestedClaimDetection,
  type ResolvedGuardOptions,
  resolveGuardOptions,
} from './core/guard-options.js';
export {
  type ClaimContext,
  type Handler,
  type HandlerResult,
  IdempotencyGuard,
  type PurgeOptions,
  type RunOptions,
  type TransactionHandler,
} from './core/idempotency-guard.js';
export { MissingPeer } from './core/import-peer.js';
export type { Outcome } from './core/outcome.js';
export type { Receipt, ReceiptStatus, StoredResponse } from './core/receipt.js';
export { MAX_KEY_PART_CHARS, RequestKey, requestKey } from './core/request-key.js';
export { type ResponseInit, toStoredResponse } from './core/response.js';
export type { HandlerTransactionOf, Store, TransactionalStore, TransactionOf } from './core/store.js';
export { MemoryStore } from './stores/memory/memory-store.js';
