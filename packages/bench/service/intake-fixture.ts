/**
 * What both sides of the webhook-intake pair share: the test signing secret, the untimed seed
 * of orders and payment attempts the deliveries are about, and the signed Stripe deliveries themselves.
 *
 * Each order `i` of a run is `awaiting_payment` with one `pending` attempt whose provider payment id is
 * `pi_<run>_<i>`; its delivery is a `payment_intent.succeeded` event `evt_<run>_<i>` for the same amount and
 * currency, so `applyProviderEvent` has real work: the order becomes paid, the attempt succeeded, one fulfilment job
 * is enqueued and one journal row of each kind is written.
 */

import { signedHeaders } from '@payonce/sandbox/internal/webhook-signer.js';
import type pg from 'pg';

/** The Stripe endpoint secret both sides verify with (a neutral test value, never a real one). */
export const BENCH_STRIPE_SECRET = 'whsec_payoncebenchplaceholdersecret0';

/** The provider name the attempts are stored under (the service's `PaymentProvider.name`). */
export const BENCH_PROVIDER = 'stripe';

/** Amount of every seeded order, minor units, and its currency. */
export const BENCH_AMOUNT_MINOR = 1999;
export const BENCH_CURRENCY = 'EUR';

/** Every table the service writes, emptied before a side seeds (the harness's reset empties only receipts). */
const SERVICE_TABLES = [
  'payonce_receipts',
  'payonce_webhook_deliveries',
  'payonce_payment_events',
  'payonce_outbox',
  'payonce_effects',
  'payonce_service_fulfilments',
  'payonce_service_refunds',
  'payonce_payment_attempts',
  'payonce_orders',
];

/** The order id, attempt id and payment id of order `i` of run `run`. */
export function seededIds(run: string, i: number) {
  return { orderId: `ord_${run}_${i}`, attemptId: `att_${run}_${i}`, paymentId: `pi_${run}_${i}` };
}

/**
 * Empties the service's tables of the namespace and seeds `count` payable orders with one pending attempt each
 * (two statements with `generate_series`), then ANALYZEs, so neither side meets a fresh, unanalysed table.
 */
export async function seedOrders(db: pg.Client, run: string, count: number): Promise<void> {
  await db.query(`truncate ${SERVICE_TABLES.join(', ')}`);
  const now = Date.now();
  await db.query(
    `insert into payonce_orders (id, principal, status, amount_minor, currency, paid_attempt_id, created_at, updated_at)
     select 'ord_' || $1 || '_' || i, 'bench-customer', 'awaiting_payment', $2, $3, null, $4, $4
       from generate_series(0, $5 - 1) as i`,
    [run, BENCH_AMOUNT_MINOR, BENCH_CURRENCY, now, count],
  );
  await db.query(
    `insert into payonce_payment_attempts (id, order_id, provider, status, amount_minor, currency, idempotency_key,
       provider_payment_id, action_url, last_error, created_at, updated_at)
     select 'att_' || $1 || '_' || i, 'ord_' || $1 || '_' || i, $2, 'pending', $3, $4,
            'payment-attempt:att_' || $1 || '_' || i, 'pi_' || $1 || '_' || i, null, null, $5, $5
       from generate_series(0, $6 - 1) as i`,
    [run, BENCH_PROVIDER, BENCH_AMOUNT_MINOR, BENCH_CURRENCY, now, count],
  );
  await db.query(`analyze ${SERVICE_TABLES.join(', ')}`);
}

/** One signed delivery: the exact body bytes and the headers Stripe sends with them. */
export interface SignedDelivery {
  readonly eventId: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** What a `payment_intent.succeeded` delivery is about. */
export interface SucceededPayment {
  readonly eventId: string;
  readonly paymentId: string;
  readonly attemptId: string;
  readonly orderId: string;
  readonly amountMinor: number;
  readonly currency: string;
}

/**
 * A `payment_intent.succeeded` delivery, shaped as Stripe sends it (API version 2024-06-20) and signed
 * `Stripe-Signature: t=…,v1=…` with {@link BENCH_STRIPE_SECRET} by the project's signer.
 */
export function succeededDelivery(payment: SucceededPayment, nowSec = Math.floor(Date.now() / 1000)): SignedDelivery {
  const { eventId } = payment;
  const body = JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2024-06-20',
    created: nowSec,
    type: 'payment_intent.succeeded',
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: {
      object: {
        id: payment.paymentId,
        object: 'payment_intent',
        amount: payment.amountMinor,
        currency: payment.currency.toLowerCase(),
        status: 'succeeded',
        metadata: { merchant_reference: payment.attemptId, order_id: payment.orderId },
      },
    },
  });
  const headers = signedHeaders({ scheme: 'stripe', secret: BENCH_STRIPE_SECRET }, eventId, body, nowSec);
  return { eventId, body, headers };
}

/** The delivery of seeded order `i` of run `run` ({@link seedOrders}). */
export function signedDelivery(run: string, i: number, nowSec = Math.floor(Date.now() / 1000)): SignedDelivery {
  const ids = seededIds(run, i);
  const money = { amountMinor: BENCH_AMOUNT_MINOR, currency: BENCH_CURRENCY };
  return succeededDelivery({ eventId: `evt_${run}_${i}`, ...ids, ...money }, nowSec);
}
