import pg from 'pg';
import { vi } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { PaymentAttempt } from '../../packages/payonce/src/payments/payment-attempt.js';
import type { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { ProviderPaymentEvent } from '../../packages/payonce/src/payments/provider-payment-event.js';

let eventSeq = 0;

/** A unique provider event id for this test run. */
export const eventId = (label: string): string => `evt_${label}_${++eventSeq}_${process.pid}`;

/**
 * A verified provider event about `attempt` as the webhook intake would hand it over: provider `fake`, a fresh
 * event id, the attempt's payment id, amount, currency and merchant reference, `succeeded` unless overridden.
 */
export function eventAbout(
  attempt: PaymentAttempt,
  overrides: Partial<ProviderPaymentEvent> & { id?: string } = {},
): ProviderPaymentEvent {
  const { id, ...rest } = overrides;
  return {
    provider: 'fake',
    key: new RequestKey('fake', id ?? eventId('e')),
    eventType: 'payment.succeeded',
    status: 'succeeded',
    paymentId: attempt.providerPaymentId,
    amountMinor: attempt.amountMinor,
    currency: attempt.currency,
    merchantReference: attempt.id,
    occurredAtMs: null,
    ...rest,
  };
}

/** An order of 2 500 UZS with its checkout's attempt open (`pending` at the in-memory provider). */
export async function openAttempt(payments: Payments<unknown>) {
  const order = await payments.createOrder('customer-a', { amountMinor: 2500, currency: 'UZS' });
  const opened = await payments.openCheckout(order.id, 'customer-a');
  if (opened.kind !== 'attempt') throw new Error(opened.kind);
  return { order, attempt: opened.attempt };
}

const textOf = (query: unknown): string =>
  typeof query === 'string' ? query : String((query as { text?: unknown } | null)?.text);

/** The SQL texts this process sends to PostgreSQL (through `pg`) while `work` runs, and its result. */
export async function sentStatements<T>(work: () => Promise<T>): Promise<{ result: T; texts: string[] }> {
  const spy = vi.spyOn(pg.Client.prototype, 'query');
  try {
    const result = await work();
    return { result, texts: spy.mock.calls.map(([first]) => textOf(first as unknown)) };
  } finally {
    spy.mockRestore();
  }
}
