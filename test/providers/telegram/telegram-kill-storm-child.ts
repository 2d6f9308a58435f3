// Child process of telegram-kill-storm.test.ts: one replica, a one-commit TelegramPoller on the shared SQLite file
// and the fake Bot API. Its handler adds 1 to the update's counter row (not idempotent by itself) in the update's
// receipt transaction and prints `writing <update_id>` before the commit; it prints `lease` when it takes the
// polling lease, `duplicate <update_id>` for a replayed update and `polling` once started. SIGTERM stops it
// cleanly (exit 0).
import { type Kysely, sql } from 'kysely';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { TelegramPoller } from '../../../packages/payonce/src/providers/telegram/telegram-poller.js';
import type { SqlDialectName } from '../../../packages/payonce/src/stores/sql/sql-dialect.js';
import { openTarget } from '../../outbox/sql-backends.js';

const [dialect, target, apiUrl, token, leaseMs] = process.argv.slice(2) as [
  SqlDialectName,
  string,
  string,
  string,
  string,
];
let stopping: (() => Promise<void>) | null = null;
process.once('SIGTERM', () => void (stopping ?? (async () => {}))().then(() => process.exit(0)));

const store = await openTarget(dialect, target);
const poller = new TelegramPoller({
  guard: new IdempotencyGuard(store),
  token,
  apiBaseUrl: apiUrl,
  transaction: true,
  pollTimeoutSeconds: 1,
  leaseMs: Number(leaseMs),
  retryDelayMs: 20,
  maxRetryDelayMs: 200,
  limit: 50,
  handler: async (update, { tx }) => {
    await sql`update tg_counters set counter = counter + 1 where update_id = ${update.update_id}`.execute(
      tx as Kysely<unknown>,
    );
    process.stdout.write(`writing ${update.update_id}\n`);
  },
});
poller.on('lease', ({ held }) => {
  if (held) process.stdout.write('lease\n');
});
poller.on('update', ({ updateId, outcome }) => {
  if (outcome === 'duplicate') process.stdout.write(`duplicate ${updateId}\n`);
});
stopping = async () => {
  await poller.stop();
  await store.close();
};
poller.start();
process.stdout.write('polling\n');
