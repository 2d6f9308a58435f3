import { sql } from 'kysely';
import { type JobHandler, OutboxWorker } from 'payonce/outbox';
import type { ReceiptsDatabase } from 'payonce/sql';
import { FULFIL_TOPIC, type Shop } from './shop.js';

/**
 * The worker that ships paid orders: each `order.fulfil` job writes one `fulfilments` row and moves the order to
 * `fulfilled`, in the effect ledger's transaction (`context.once`, keyed by the job), so a job re-run after a crash
 * never ships twice. `context.once` hands payonce's Kysely transaction: the writes are plain SQL on it.
 * `starsShippedByWebhook` (STORM_EXAMPLE_BROKEN=telegram-no-receipt) leaves the Telegram Stars (`XTR`) orders to the
 * broken variant's webhook, which ships them itself; `more` are other topics' handlers (the Stars refunds').
 */
export function fulfilmentWorker(
  shop: Shop,
  starsShippedByWebhook = false,
  more: Readonly<Record<string, JobHandler<ReceiptsDatabase>>> = {},
): OutboxWorker<ReceiptsDatabase> {
  return new OutboxWorker(
    shop.store,
    {
      ...more,
      [FULFIL_TOPIC]: async (job, context) => {
        const { orderId } = job.payload as { orderId: string };
        await context.once(`fulfil:${job.id}`, async (trx) => {
          if (starsShippedByWebhook) {
            const { rows } = await sql<{ currency: string }>`select currency from orders where id = ${orderId}`.execute(
              trx,
            );
            if (rows[0]?.currency === 'XTR') return;
          }
          await sql`insert into fulfilments (id, order_id, job_id) values (${`ful_${job.id}`}, ${orderId}, ${job.id})`.execute(
            trx,
          );
          await sql`update orders set status = 'fulfilled' where id = ${orderId} and status = 'paid'`.execute(trx);
        });
      },
    },
    { pollIntervalMs: 50, backoffBaseMs: 200 },
  );
}
