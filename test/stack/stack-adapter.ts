import type { Transaction } from 'kysely';
import type { RunOptions } from '../../packages/payonce/src/core/guard-types.js';
import type { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { Outcome } from '../../packages/payonce/src/core/outcome.js';
import type { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { ReceiptsDatabase } from '../../packages/payonce/src/stores/sql/receipts-table.js';
import type { StackDatabase, StackStore, StackTarget } from './stack-target.js';

/** What the suite's handler does with the stack's own transaction object. */
export interface StackOps {
  /** The business write: one `stack_effects` row, through the stack's own API. */
  writeEffect(eventId: string): Promise<void>;
  /** `stack_orders` joined with `stack_customers` (both have an `id`), through the stack's own API, by order id. */
  joinedIds(): Promise<{ orderId: string; customerId: string }[]>;
  /** True when the handler's `tx` is the stack's own transaction object. */
  readonly isOwn: boolean;
}

/** The handler of the suite: the stack's operations and the same transaction as payonce's Kysely view. */
export type StackHandler = (ops: StackOps, payonceTx: Transaction<ReceiptsDatabase>) => Promise<void>;

/** One stack under test, on one target. */
export interface StackAdapter {
  /**
   * One delivery in ONE transaction of the stack, through the adapter's `runIn…Transaction`: commits when `handler`
   * resolves, rolls back (and rethrows) when it throws.
   */
  deliver(
    guard: IdempotencyGuard<StackStore>,
    key: RequestKey,
    handler: StackHandler,
    options?: RunOptions,
  ): Promise<Outcome>;
  close(): Promise<void>;
}

/** One adapter of `payonce/tx/*` in the suite: the databases its stack supports, and how to open it on a target. */
export interface StackAdapterDefinition {
  readonly databases: readonly StackDatabase[];
  make(target: StackTarget): StackAdapter | Promise<StackAdapter>;
}
