import { hasCapability } from '../app/storm-app-adapter.js';
import { type CraftedSignature, craftSucceededEvent } from '../crafted-event.js';
import type { OrderView } from '../order-view.js';
import type { StormDelivery } from '../sandbox-api.js';
import type { Scenario } from '../scenario.js';
import type { ScenarioContext } from '../scenario-context.js';
import { expectPaid } from './expect-paid.js';
import { delivered, expectUnpaid, heldPayment, isClientError, isSuccess } from './steps.js';

const SUCCEEDED = 'payment_intent.succeeded';

/**
 * True when an app's journal id names the event `eventId`: the same id, or one the app qualified with a prefix
 * (the reference service journals Standard Webhooks events as `standard-webhooks:msg_…`).
 */
export function namesEvent(journalId: string | null, eventId: string): boolean {
  return journalId !== null && (journalId === eventId || journalId.endsWith(`:${eventId}`));
}

/** Ids of the genuine success events the app acknowledged (2xx to the sandbox's first send). */
function acknowledgedSuccesses(log: readonly StormDelivery[]): Set<string> {
  return new Set(
    log.filter((d) => d.kind === 'attempt' && d.eventType === SUCCEEDED && isSuccess(d.status)).map((d) => d.eventId),
  );
}

/**
 * The journal checks of a scenario mean something only if the app journals events at all: its payment journal
 * (and, with `deliveries`, its delivery journal) must show one of the genuine success events it acknowledged.
 * An adapter that claims the `journal` capability and returns empty lists fails here instead of passing vacuously.
 */
function expectJournaled(
  ctx: ScenarioContext,
  view: OrderView,
  genuine: ReadonlySet<string>,
  journals: readonly ('journal' | 'deliveries')[],
): void {
  const ids = [...genuine].join(', ') || '(none acknowledged)';
  for (const journal of journals) {
    const entries = view[journal];
    ctx.expect(
      entries.some((e) => [...genuine].some((id) => namesEvent(e.eventId, id))),
      `the app's ${journal === 'journal' ? 'payment journal' : 'delivery journal'} (${entries.length} entries) does ` +
        `not show the genuine success event ${ids} it acknowledged: with nothing journaled the journal checks ` +
        'check nothing',
    );
  }
}

/** docs/design.md §9 scenario 10. */
export const badSignature: Scenario = {
  id: 10,
  name: 'bad signature',
  defends: 'repeated business effect',
  criterion:
    'success events for a pending payment signed with a wrong secret, without a signature, with a 10-minute-old ' +
    'timestamp, or altered after signing all get 4xx and leave the order unpaid; the provider’s own forged and ' +
    'tampered copies get 4xx too; the genuine event then pays the order once',
  async run(ctx) {
    const held = await heldPayment(ctx, { forgedSignature: true, tamperedAmount: 'in-transit' });
    const kinds: CraftedSignature[] = ['wrong-secret', 'missing', 'stale', 'tampered'];
    const statuses: string[] = [];
    for (const signature of kinds) {
      const event = craftSucceededEvent(held.signing, { intent: held.intent, signature, nowMs: Date.now() });
      const answer = await ctx.sendCrafted(event);
      statuses.push(`${signature} ${answer.status}`);
      ctx.expect(
        isClientError(answer.status),
        `a success event with a ${signature} signature answered ${answer.status}`,
      );
    }
    ctx.note(`crafted deliveries: ${statuses.join(', ')}`);
    expectUnpaid(ctx, await ctx.view(held.orderId), 'the badly signed events');
    await ctx.sandbox.settle(held.paymentId);
    const log = await delivered(ctx, held.paymentId, SUCCEEDED);
    for (const d of log ?? []) {
      if (d.kind === 'forged-signature' || d.kind === 'tampered-in-transit') {
        ctx.expect(isClientError(d.status), `the provider's ${d.kind} copy answered ${d.status}`);
      }
    }
    await expectPaid(ctx, held.orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 11. */
export const foreignEvent: Scenario = {
  id: 11,
  name: 'valid signature, foreign order/amount/currency',
  defends: 'repeated business effect',
  criterion:
    'correctly signed success events about a pending payment that report another amount, another currency, ' +
    'another order or another attempt’s merchant reference change nothing (no paid transition on either order, ' +
    'no 5xx); the genuine event pays once; with a journal (capability `journal`): the genuine event is in it and ' +
    'the provider’s re-signed copy with a doubled amount is not applied',
  async run(ctx) {
    const held = await heldPayment(ctx, { tamperedAmount: 'resigned' });
    const other = await heldPayment(ctx);
    const amount = Number(held.intent.amount);
    const otherReference = (other.intent.metadata as Record<string, unknown> | undefined)?.merchant_reference;
    const variants: [string, (intent: Record<string, unknown>) => void][] = [
      ['another amount', (i) => Object.assign(i, { amount: amount + 1, amount_received: amount + 1 })],
      ['another currency', (i) => Object.assign(i, { currency: i.currency === 'usd' ? 'eur' : 'usd' })],
      ['another order', (i) => Object.assign(i.metadata as object, { order_id: other.orderId })],
      ['another attempt', (i) => Object.assign(i.metadata as object, { merchant_reference: otherReference })],
    ];
    const statuses: string[] = [];
    for (const [what, change] of variants) {
      const event = craftSucceededEvent(held.signing, {
        intent: held.intent,
        change,
        signature: 'valid',
        nowMs: Date.now(),
      });
      const answer = await ctx.sendCrafted(event);
      statuses.push(`${what} ${answer.status}`);
      ctx.expect(answer.status < 500, `a signed event with ${what} answered ${answer.status} (a 5xx makes it retried)`);
    }
    ctx.note(`crafted deliveries: ${statuses.join(', ')}`);
    expectUnpaid(ctx, await ctx.view(held.orderId), 'the foreign events');
    expectUnpaid(ctx, await ctx.view(other.orderId), 'the foreign events (the other order)');
    await ctx.sandbox.settle(held.paymentId);
    await ctx.sandbox.settle(other.paymentId);
    const log = (await delivered(ctx, held.paymentId, SUCCEEDED)) ?? [];
    const resigned = log.filter((d) => d.kind === 'tampered-resigned').map((d) => d.eventId);
    ctx.expect(resigned.length > 0, 'the provider sent no re-signed copy with a doubled amount');
    if (hasCapability(ctx.service.adapter, 'journal')) {
      const view = await ctx.view(held.orderId);
      expectJournaled(ctx, view, acknowledgedSuccesses(log), ['journal']);
      for (const eventId of resigned) {
        const applied = view.journal.filter((e) => namesEvent(e.eventId, eventId) && e.decision === 'applied');
        ctx.expect(applied.length === 0, `the re-signed event ${eventId} with a doubled amount was applied`);
      }
    } else {
      ctx.note(
        'journal check skipped (the adapter has no journal capability): the re-signed doubled-amount copy is judged ' +
          'by the order alone (paid once, charged its amount), not by the app’s decision about it',
      );
    }
    await expectPaid(ctx, held.orderId);
    await expectPaid(ctx, other.orderId);
    return ctx.conclude();
  },
};

/** docs/design.md §9 scenario 18. */
export const forgedEventRejected: Scenario = {
  id: 18,
  name: 'forged event rejected before any business action',
  defends: 'repeated business effect',
  criterion:
    'a success event signed with a wrong secret gets 4xx, leaves the order untouched and writes no journal entry; ' +
    'when the provider sends a forged copy of its genuine event (same event id) first, the copy gets 4xx and the ' +
    'genuine event is still applied (no receipt was written for the forgery) and journaled: paid and fulfilled once',
  needs: ['journal'],
  async run(ctx) {
    const held = await heldPayment(ctx, { forgedSignature: true });
    const forged = craftSucceededEvent(held.signing, {
      intent: held.intent,
      signature: 'wrong-secret',
      nowMs: Date.now(),
    });
    const answer = await ctx.sendCrafted(forged);
    ctx.note(`forged event ${forged.eventId}: ${answer.status}`);
    ctx.expect(isClientError(answer.status), `the forged event answered ${answer.status}, expected 4xx`);
    const view = await ctx.view(held.orderId);
    expectUnpaid(ctx, view, 'the forged event');
    ctx.expect(
      !view.journal.some((e) => namesEvent(e.eventId, forged.eventId)),
      'the forged event reached the payment journal (a business action)',
    );
    ctx.expect(
      view.deliveries.filter((d) => namesEvent(d.eventId, forged.eventId)).every((d) => d.decision === 'rejected'),
      'the forged event was journaled as a delivery other than "rejected"',
    );
    await ctx.sandbox.settle(held.paymentId);
    const log = (await delivered(ctx, held.paymentId, SUCCEEDED)) ?? [];
    const after = await ctx.view(held.orderId);
    expectJournaled(ctx, after, acknowledgedSuccesses(log), ['journal', 'deliveries']);
    ctx.expect(
      !after.journal.some((e) => namesEvent(e.eventId, forged.eventId)),
      'the forged event reached the payment journal (a business action) after the genuine one was applied',
    );
    const copies = log.filter((d) => d.kind === 'forged-signature');
    ctx.expect(copies.length > 0, 'the provider sent no forged copy');
    for (const copy of copies) {
      ctx.expect(isClientError(copy.status), `the forged copy of ${copy.eventId} answered ${copy.status}`);
      ctx.expect(
        log.some((d) => d.eventId === copy.eventId && d.kind === 'attempt' && isSuccess(d.status)),
        `the genuine ${copy.eventId} after its forged copy was not acknowledged`,
      );
    }
    await expectPaid(ctx, held.orderId);
    return ctx.conclude();
  },
};
