import { type Kysely, sql } from 'kysely';
import type { GuardOptions } from '../../../packages/payonce/src/core/guard-options.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { TelegramPoller } from '../../../packages/payonce/src/providers/telegram/telegram-poller.js';
import type { TelegramPollerOptions } from '../../../packages/payonce/src/providers/telegram/telegram-poller-options.js';
import type { TelegramUpdate } from '../../../packages/payonce/src/providers/telegram/telegram-update.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import type { FakeBotApi } from './fake-bot-api.js';

/** The tests' business table: one row per applied update, with NO unique constraint of its own. */
export async function createEffectsTable(store: SqlStore<unknown>): Promise<void> {
  const db = store.db as unknown as Kysely<unknown>;
  await sql`create table if not exists tg_effects (update_id bigint not null, runner varchar(40) not null)`.execute(db);
}

/** Rows per update id (only ids with at least one row). */
export async function effectsOf(store: SqlStore<unknown>): Promise<Map<number, number>> {
  const db = store.db as unknown as Kysely<unknown>;
  const { rows } = await sql<{ update_id: number | string; n: number | string }>`
    select update_id, count(*) as n from tg_effects group by update_id`.execute(db);
  return new Map(rows.map((r) => [Number(r.update_id), Number(r.n)]));
}

/** Writes one effect row through the one-commit transaction. */
export async function writeEffect(tx: unknown, update: TelegramUpdate, runner: string): Promise<void> {
  await sql`insert into tg_effects (update_id, runner) values (${update.update_id}, ${runner})`.execute(
    tx as Kysely<unknown>,
  );
}

/** A one-commit poller against the fake, with short leases and delays for tests. */
export function testPoller(
  store: SqlStore<unknown>,
  api: FakeBotApi,
  runner: string,
  extra: Partial<TelegramPollerOptions<SqlStore<unknown>>> = {},
  guardOptions: GuardOptions = {},
): TelegramPoller<SqlStore<unknown>> {
  const guard = new IdempotencyGuard(store, guardOptions);
  return new TelegramPoller({
    guard,
    token: api.token,
    apiBaseUrl: api.url,
    transaction: true,
    pollTimeoutSeconds: 1,
    leaseMs: 600,
    retryDelayMs: 20,
    maxRetryDelayMs: 200,
    handler: (update, { tx }) => writeEffect(tx, update, runner),
    ...extra,
  });
}

/** Resolves when `check` holds (polled every 20 ms); rejects after `limitMs` with `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
