import type { Kysely } from 'kysely';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createWebhookIntake, type WebhookIntake } from '../../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeIdOf, stripeObject } from '../../../packages/payonce/src/webhooks/providers/event-objects.js';
import { stripeProfile } from '../../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { STRIPE_SECRET } from './stripe-deliveries.js';

/**
 * The acceptance suite's business table: one credit row per applied `invoice.paid`. It has NO unique constraint
 * (no primary key, no unique index): only the one-commit intake keeps it to one row per event.
 */
export interface CreditsDatabase {
  credits: { event_id: string; invoice_id: string; customer: string | null; amount_minor: number };
}

/** Creates the `credits` table (no key of its own) in the store's database. */
export async function createCreditsTable(store: SqlStore<unknown>): Promise<void> {
  const db = store.db as unknown as Kysely<CreditsDatabase>;
  await db.schema
    .createTable('credits')
    .ifNotExists()
    .addColumn('event_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('invoice_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('customer', 'varchar(64)')
    .addColumn('amount_minor', 'integer', (c) => c.notNull())
    .execute();
}

/** Credit rows of `invoiceId`. */
export async function creditsOf(store: SqlStore<unknown>, invoiceId: string): Promise<number> {
  const db = store.db as unknown as Kysely<CreditsDatabase>;
  const rows = await db.selectFrom('credits').select('event_id').where('invoice_id', '=', invoiceId).execute();
  return rows.length;
}

/** What the test does right after the handler's business write (throw, hang, report). */
export type AfterWrite = (eventId: string) => Promise<void> | void;

/**
 * The user's app of issue 13 ("grant credits per invoice"), through the public API: a Stripe endpoint in the
 * one-commit mode whose handler reads the invoice with `stripeObject` and inserts a credit through `context.tx`.
 */
export function creditsIntake(
  untyped: SqlStore<unknown>,
  afterWrite: AfterWrite = () => {},
): { intake: WebhookIntake; guard: IdempotencyGuard<SqlStore<CreditsDatabase>>; journal: MemoryDeliveryJournal } {
  const store = untyped as SqlStore<CreditsDatabase>;
  const guard = new IdempotencyGuard(store);
  const journal = new MemoryDeliveryJournal();
  const intake = createWebhookIntake({
    guard,
    journal,
    endpoints: {
      stripe: {
        transaction: true,
        profile: stripeProfile(),
        scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
        handler: async (event, { tx }) => {
          const invoice = stripeObject(event, 'invoice');
          if (invoice === null) return { received: true, ignored: true };
          await tx
            .insertInto('credits')
            .values({
              event_id: event.eventId ?? '',
              invoice_id: invoice.id,
              customer: stripeIdOf(invoice.customer),
              amount_minor: invoice.amount_paid ?? 0,
            })
            .execute();
          await afterWrite(event.eventId ?? '');
          return { received: true, credited: invoice.amount_paid };
        },
      },
    },
  });
  return { intake, guard, journal };
}
