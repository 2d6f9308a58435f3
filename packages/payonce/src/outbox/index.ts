/**
 * `payonce/outbox`: the transactional outbox (`Outbox.enqueueOnce`), its leased worker with backoff and dead
 * letter (`OutboxWorker`), and the effect ledger (`runEffectOnce`). SQL stores only (migration `0003-outbox`).
 * @see docs/design.md §7.
 */
export { backoffDelayMs } from './backoff.js';
export { type ClaimJobRequest, claimJob } from './claim-job.js';
export { type EffectOptions, type EffectResult, effectApplied, runEffectOnce } from './effect-ledger.js';
export { type EnqueueOptions, type EnqueueResult, Outbox } from './outbox.js';
export type { OutboxJob, OutboxJobStatus } from './outbox-job.js';
export {
  EFFECTS_TABLE,
  type EffectsTable,
  OUTBOX_ORDER_TABLE,
  OUTBOX_TABLE,
  OUTBOX_TRACE_TABLE,
  type OutboxDatabase,
  type OutboxOrderTable,
  type OutboxTable,
  type OutboxTraceTable,
} from './outbox-tables.js';
export { type JobContext, type JobHandler, type JobRunResult, OutboxWorker } from './outbox-worker.js';
export type { OutboxWorkerOptions } from './outbox-worker-options.js';
export { PermanentJobFailure } from './permanent-job-failure.js';
export type { SqlTarget } from './sql-transaction.js';
