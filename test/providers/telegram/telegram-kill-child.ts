// Child process of telegram-kill.test.ts: a one-commit TelegramPoller on the given namespace and fake Bot API,
// printing `writing <update_id>` inside each update's transaction (before its commit) until it is SIGKILLed.
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { TelegramPoller } from '../../../packages/payonce/src/providers/telegram/telegram-poller.js';
import type { SqlDialectName } from '../../../packages/payonce/src/stores/sql/sql-dialect.js';
import { openTarget } from '../../outbox/sql-backends.js';
import { writeEffect } from './telegram-support.js';

const [dialect, target, apiUrl, token] = process.argv.slice(2) as [SqlDialectName, string, string, string];
const store = await openTarget(dialect, target);
const poller = new TelegramPoller({
  guard: new IdempotencyGuard(store),
  token,
  apiBaseUrl: apiUrl,
  transaction: true,
  pollTimeoutSeconds: 1,
  leaseMs: 500,
  retryDelayMs: 20,
  maxRetryDelayMs: 200,
  limit: 7,
  handler: async (update, { tx }) => {
    await writeEffect(tx, update, `child-${process.pid}`);
    process.stdout.write(`writing ${update.update_id}\n`);
  },
});
poller.start();
