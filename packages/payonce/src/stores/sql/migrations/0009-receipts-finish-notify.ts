import type { SqlMigration } from './sql-migration.js';

/** The PostgreSQL channel a finished receipt is announced on (see `receiptsFinishNotify0009`). */
export const RECEIPT_FINISHED_CHANNEL = 'payonce_receipt_finished';

/**
 * PostgreSQL only: a trigger announces every receipt that leaves `processing` (completed or failed) with
 * `NOTIFY payonce_receipt_finished, '["<provider>","<external_id>"]'` (a JSON array), so a duplicate waiting for an
 * in-flight claim (`waitForInFlightMs`) is woken by the database instead of polling (issue #15). PostgreSQL delivers
 * a notification when the transaction that sent it commits, so a waiter never reads a finish that may still roll
 * back, also for `runInTransaction`. Listeners of another schema on the same database may hear it too; they read
 * the receipt again and find nothing changed. MySQL and SQLite have no notification: waiters poll, and their
 * statement lists are empty. Idempotent (`create or replace`, `drop trigger if exists`). Released: never edit.
 */
export const receiptsFinishNotify0009: SqlMigration = Object.freeze({
  name: '0009-receipts-finish-notify',
  statements: Object.freeze({
    postgres: [
      `create or replace function payonce_receipt_finished_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('${RECEIPT_FINISHED_CHANNEL}', json_build_array(new.provider, new.external_id)::text);
  return null;
end
$$`,
      'drop trigger if exists payonce_receipt_finished on payonce_receipts',
      `create trigger payonce_receipt_finished after update of status on payonce_receipts
  for each row when (new.status <> 'processing') execute function payonce_receipt_finished_notify()`,
    ],
    mysql: [],
    sqlite: [],
  }),
});
