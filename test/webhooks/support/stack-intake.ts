import { drizzle } from 'drizzle-orm/node-postgres';
import { pgTable, text } from 'drizzle-orm/pg-core';
import type { Transaction } from 'kysely';
import pg from 'pg';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { Outbox } from '../../../packages/payonce/src/outbox/outbox.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import type { StackTransactions } from '../../../packages/payonce/src/stores/sql/stack-transactions.js';
import { drizzleTransactions } from '../../../packages/payonce/src/tx/drizzle.js';
import { pgTransactions } from '../../../packages/payonce/src/tx/pg.js';
import { createWebhookIntake, type WebhookIntake } from '../../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeObject } from '../../../packages/payonce/src/webhooks/providers/event-objects.js';
import type { ProviderEvent } from '../../../packages/payonce/src/webhooks/providers/provider-event.js';
import { stripeProfile } from '../../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { webhookEndpoint } from '../../../packages/payonce/src/webhooks/webhook-endpoint.js';
import { STRIPE_SECRET } from './stripe-deliveries.js';

/** The application's own business table (no unique constraint): one row per applied event, written by its stack. */
export const effects = pgTable('stack_effects', { eventId: text('event_id').notNull() });

/** The stacks the intake runs on here: node-postgres and Drizzle on node-postgres. */
export type StackKind = 'pg' | 'drizzle';
export const STACK_KINDS: readonly StackKind[] = ['pg', 'drizzle'];

/** The outbox topic the handler enqueues one job of per applied event (dedupe key = the event id). */
export const EFFECT_TOPIC = 'effect.applied';

/** What the test does right after the handler's writes, inside the open transaction (throw, hang, count). */
export type AfterWrite = (eventId: string) => Promise<void> | void;

/** A pool of the application on the PostgreSQL schema the store lives in. */
export function appPool(url: string, schema: string): pg.Pool {
  return new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 12 });
}

/**
 * The application of this suite: a Stripe endpoint in the one-commit mode on the application's stack. Its handler
 * writes `stack_effects` with the stack's own `tx` and enqueues an outbox job with `payonceTx`, then runs
 * `afterWrite` before the commit.
 */
export function stackIntake(
  kind: StackKind,
  store: SqlStore<unknown>,
  pool: pg.Pool,
  afterWrite: AfterWrite = () => {},
): { intake: WebhookIntake; guard: IdempotencyGuard; journal: MemoryDeliveryJournal; outbox: Outbox<unknown> } {
  const guard = new IdempotencyGuard(store);
  const journal = new MemoryDeliveryJournal();
  const outbox = new Outbox<unknown>(store);
  const common = { profile: stripeProfile(), scheme: stripeScheme({ secrets: [STRIPE_SECRET] }) };
  const enqueue = (payonceTx: Transaction<unknown>, eventId: string) =>
    outbox.enqueueOnce(payonceTx, EFFECT_TOPIC, eventId, { eventId });
  const answer = (event: ProviderEvent) => ({ received: true, invoice: stripeObject(event, 'invoice')?.id ?? null });
  const endpoint =
    kind === 'drizzle'
      ? webhookEndpoint({
          ...common,
          transaction: drizzleTransactions(drizzle(pool)),
          handler: async (event, { tx, payonceTx }) => {
            await tx.insert(effects).values({ eventId: event.eventId ?? '' });
            await enqueue(payonceTx as Transaction<unknown>, event.eventId ?? '');
            await afterWrite(event.eventId ?? '');
            return answer(event);
          },
        })
      : webhookEndpoint({
          ...common,
          transaction: pgTransactions(pool),
          handler: async (event, { tx, payonceTx }) => {
            await tx.query({ text: 'insert into stack_effects (event_id) values ($1)', values: [event.eventId] });
            await enqueue(payonceTx as Transaction<unknown>, event.eventId ?? '');
            await afterWrite(event.eventId ?? '');
            return answer(event);
          },
        });
  const intake = createWebhookIntake({ guard, journal, endpoints: { stripe: endpoint } });
  return { intake, guard, journal, outbox };
}

/** The opener of `kind` on `pool`, typed as the intake sees it. */
export function openerOf(kind: StackKind, pool: pg.Pool): StackTransactions<unknown> {
  return kind === 'drizzle' ? drizzleTransactions(drizzle(pool)) : pgTransactions(pool);
}
