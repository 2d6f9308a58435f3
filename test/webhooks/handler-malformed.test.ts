import { describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { stripeObject } from '../../packages/payonce/src/webhooks/providers/event-objects.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { STRIPE_SECRET, signedStripeHeaders } from './support/stripe-deliveries.js';

// Issue #34 item 22: a typed accessor accepts what Stripe's API reference leaves optional, and a payload it
// refuses inside a handler is answered as its docstring says (400 MALFORMED_WEBHOOK_PAYLOAD), not 500.

function invoiceEvent(eventId: string, invoice: Record<string, unknown>): string {
  const created = Math.floor(Date.now() / 1000);
  const object = { id: `in_${eventId}`, object: 'invoice', customer: 'cus_placeholder_1', currency: 'usd', ...invoice };
  return JSON.stringify({ id: eventId, object: 'event', type: 'invoice.paid', created, data: { object } });
}

function intakeGranting() {
  const journal = new MemoryDeliveryJournal();
  const guard = new IdempotencyGuard(new MemoryStore());
  const granted: (number | null)[] = [];
  const intake = createWebhookIntake({
    guard,
    journal,
    endpoints: {
      stripe: {
        profile: stripeProfile(),
        scheme: stripeScheme({ secrets: STRIPE_SECRET }),
        handler: (event) => {
          const invoice = stripeObject(event, 'invoice');
          granted.push(invoice?.amount_paid ?? null);
          return { received: true };
        },
      },
    },
  });
  const deliver = (body: string) =>
    intake.receive({ endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) });
  return { intake, journal, guard, granted, deliver };
}

describe('typed Stripe objects inside an intake handler', () => {
  it('accepts an invoice without amount_due (optional in the API reference) and hands the handler its fields', async () => {
    const { deliver, granted } = intakeGranting();
    const answer = await deliver(invoiceEvent('evt_no_amount_due', { amount_paid: 4200 }));
    expect(answer.status, new TextDecoder().decode(answer.body)).toBe(200);
    const bare = await deliver(invoiceEvent('evt_bare_invoice', {}));
    expect(bare.status).toBe(200);
    expect(granted).toEqual([4200, null]);
  });

  it('answers 400 MALFORMED_WEBHOOK_PAYLOAD for a mistyped field the handler reads, journaled rejected, never stored', async () => {
    const { deliver, journal, guard } = intakeGranting();
    const body = invoiceEvent('evt_bad_invoice', { amount_paid: 42, amount_due: '42' });
    for (let delivery = 0; delivery < 2; delivery++) {
      const answer = await deliver(body);
      const problem = JSON.parse(new TextDecoder().decode(answer.body)) as { code: string; detail: string };
      expect(answer.status).toBe(400);
      expect(problem.code).toBe('MALFORMED_WEBHOOK_PAYLOAD');
      expect(problem.detail).toContain('data.object.amount_due');
    }
    const rows = await journal.forPayment('in_evt_bad_invoice');
    expect(rows.map((r) => [r.decision, r.outcome, r.responseStatus])).toEqual([
      ['rejected', 'rejected', 400],
      ['rejected', 'rejected', 400],
    ]);
    expect((await guard.find(new RequestKey('stripe', 'evt_bad_invoice')))?.status).not.toBe('completed');
  });
});
