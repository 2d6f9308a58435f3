import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { sql } from 'kysely';
import { PAYONCE_STORE } from 'payonce/nestjs';
import { OutboxWorker } from 'payonce/outbox';
import type { PostgresStore } from 'payonce/postgres';
import type { ReceiptsDatabase } from 'payonce/sql';
import { FULFIL_TOPIC } from './fulfilment.js';

/**
 * The worker that ships paid orders: each `order.fulfil` job writes one `shop_fulfilments` row and moves the order to
 * `fulfilled`, in the effect ledger's transaction (`context.once`, keyed by the job), so a job re-run after a crash
 * never ships twice. Started when the application has booted, stopped before PayonceModule closes the store.
 */
@Injectable()
export class FulfilmentWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly worker: OutboxWorker<ReceiptsDatabase>;

  constructor(@Inject(PAYONCE_STORE) store: PostgresStore) {
    this.worker = new OutboxWorker(
      store,
      {
        [FULFIL_TOPIC]: async (job, context) => {
          const { orderId } = job.payload as { orderId: string };
          await context.once(`fulfil:${job.id}`, async (trx) => {
            await sql`insert into shop_fulfilments (id, order_id, job_id)
              values (${`ful_${job.id}`}, ${orderId}, ${job.id})`.execute(trx);
            await sql`update shop_orders set status = 'fulfilled' where id = ${orderId} and status = 'paid'`.execute(
              trx,
            );
          });
        },
      },
      { pollIntervalMs: 50, backoffBaseMs: 200 },
    );
  }

  onApplicationBootstrap(): void {
    this.worker.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.stop();
  }
}
