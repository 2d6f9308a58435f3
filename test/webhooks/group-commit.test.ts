import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { FULFIL_TOPIC } from '../../packages/payonce/src/payments/apply-report.js';
import { InMemoryPaymentProvider } from '../../packages/payonce/src/payments/in-memory-payment-provider.js';
import { Payments } from '../../packages/payonce/src/payments/payments.js';
import type { ProviderPaymentEvent } from '../../packages/payonce/src/payments/provider-payment-event.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import { createWebhookIntake, type WebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import type { ProviderEvent } from '../../packages/payonce/src/webhooks/providers/provider-event.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { createSqlBackend, type SqlBackend } from '../outbox/sql-backends.js';
import { sentStatements } from '../payments/payments-fixtures.js';
import { BatchGate } from './support/batch-gate.js';
import { STRIPE_SECRET, signedStripeHeaders } from './support/stripe-deliveries.js';

// Issue 40: group commit of whole webhook deliveries. Concurrent one-commit deliveries (receipt, payment transition,
// payment journal row, fulfilment job, delivery journal row) share one transaction and one commit, one savepoint
// each. A gate delivery holds the only batch slot while the others queue, so they form ONE batch for certain.

let serial = 0;

interface Paid {
  readonly orderId: string;
  readonly attemptId: string;
  readonly eventId: string;
  readonly body: string;
}

/** The payment event of a delivery, as the handler applies it. */
function paymentEventOf(event: ProviderEvent): ProviderPaymentEvent {
  return {
    provider: 'stripe',
    key: new RequestKey('stripe', event.eventId ?? ''),
    eventType: event.eventType,
    status: 'succeeded',
    paymentId: event.paymentId,
    amountMinor: event.amountMinor,
    currency: event.currency,
    merchantReference: event.merchantReference,
    occurredAtMs: null,
  };
}

function succeededBody(eventId: string, paymentId: string, attemptId: string, amountMinor: number): string {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: paymentId,
        object: 'payment_intent',
        amount: amountMinor,
        currency: 'eur',
        status: 'succeeded',
        metadata: { payonce_reference: attemptId },
      },
    },
  });
}

// `receiptHeld`: the handler applies the event under the intake's receipt only (as the reference service does), else
// it also claims the payments' own receipt (`payments:stripe`) in the same transaction.
// `ahead`: the endpoint's `prepareBatch` locks the batch's orders and attempts ahead (`prelockProviderEvents`), as the
// reference service's does; every scenario must come out the same.
for (const [dialect, receiptHeld, ahead] of [
  ['postgres', false, false],
  ['postgres', true, false],
  ['postgres', false, true],
  ['postgres', true, true],
  ['sqlite', false, false],
  ['sqlite', true, false],
  ['mysql', false, false],
  ['mysql', true, false],
] as const) {
  const mode = `${receiptHeld ? ', receipt held' : ''}${ahead ? ', locked ahead' : ''}`;
  describe(`${dialect}${mode}: group commit of whole webhook deliveries`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let payments: Payments<unknown>;
    let intake: WebhookIntake;
    /**
     * What the next handler of an event does besides applying it: throw after, write a row failing the commit, kill
     * its connection; read an order's status first (`readFirst`).
     */
    const extra = new Map<string, 'throw' | 'poison-commit' | 'kill-connection' | 'read-order'>();
    /** Events applied without their payment id, found by this merchant reference (so never locked ahead). */
    const byReference = new Map<string, string>();
    /** `read-order`: the order each such event's handler reads first, and the status it read. */
    const readFirst = new Map<string, { readonly orderId: string; status?: string }>();
    /** PostgreSQL: each handler reads its transaction's id after applying (`transactionOf`); off: no statement after. */
    let recordXid = true;
    /** The payment event the handler applies and `prepareBatch` locks ahead for `event` (see `byReference`). */
    const paymentEventFor = (event: ProviderEvent): ProviderPaymentEvent => {
      const reference = byReference.get(event.eventId ?? '');
      const paymentEvent = paymentEventOf(event);
      return reference === undefined
        ? paymentEvent
        : { ...paymentEvent, paymentId: null, merchantReference: reference };
    };
    const gate = new BatchGate();
    /** Each `prepareBatch` call (`ahead`): the events it was given, and how many it locked ahead. */
    const lockedAhead: { events: number; locked: number }[] = [];
    /** Makes the next `prepareBatch` throw (`ahead`). */
    let failAhead = false;
    /** PostgreSQL: the top-level transaction each event's handler ran in (a savepoint's rows carry their own xmin). */
    const transactionOf = new Map<string, string>();

    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      // A row this table refuses only at COMMIT (a deferred constraint): the way to fail one batch's commit.
      if (dialect === 'postgres') {
        await sql`create table gc_commit_check (k int unique deferrable initially deferred)`.execute(store.db);
      } else if (dialect === 'sqlite') {
        await sql`pragma foreign_keys = on`.execute(store.db);
        await sql`create table gc_parent (id integer primary key)`.execute(store.db);
        await sql`create table gc_commit_check (p integer references gc_parent(id) deferrable initially deferred)`.execute(
          store.db,
        );
      }
      payments = new Payments(store, { provider: new InMemoryPaymentProvider({ name: 'stripe' }) });
      const guard = new IdempotencyGuard(store);
      intake = createWebhookIntake({
        guard,
        journal: new SqlDeliveryJournal(store),
        groupCommit: { maxConcurrentBatches: 1 },
        endpoints: {
          stripe: {
            profile: stripeProfile(),
            scheme: stripeScheme({ secrets: STRIPE_SECRET }),
            transaction: true,
            ...(ahead
              ? {
                  async prepareBatch(tx: unknown, events: readonly ProviderEvent[]) {
                    if (failAhead) throw new Error('the read ahead failed');
                    const locked = await payments.prelockProviderEvents(events.map(paymentEventFor), tx as never);
                    lockedAhead.push({ events: events.length, locked });
                  },
                }
              : {}),
            async handler(event: ProviderEvent, { tx }) {
              await gate.pass(event.eventId);
              const read = readFirst.get(event.eventId ?? '');
              if (read !== undefined) {
                // Through the handler's Kysely transaction, not payonce's own statements.
                const { rows } = await sql<{
                  status: string;
                }>`select status from payonce_orders where id = ${read.orderId}`.execute(tx as never);
                read.status = rows[0]?.status;
              }
              const result = await payments.applyProviderEvent(paymentEventFor(event), tx as never, { receiptHeld });
              if (dialect === 'postgres' && recordXid) {
                const { rows } = await sql<{ xid: string }>`select txid_current()::text as xid`.execute(tx as never);
                transactionOf.set(event.eventId ?? '', rows[0]?.xid ?? '');
              }
              const what = extra.get(event.eventId ?? '');
              if (what === 'throw') throw new Error('the business step failed after its writes');
              if (what === 'kill-connection') {
                const kill =
                  dialect === 'postgres'
                    ? sql`select pg_terminate_backend(pg_backend_pid())`
                    : sql`kill connection connection_id()`;
                await kill.execute(tx as never);
              }
              if (what === 'poison-commit') {
                const k = dialect === 'postgres' ? 1 : 404;
                await sql`insert into gc_commit_check values (${k}), (${k})`.execute(tx as never);
              }
              return { decision: result.decision };
            },
          },
        },
      });
    }, 60_000);
    afterAll(async () => {
      await backend?.drop();
    });

    async function payable(label: string): Promise<Paid> {
      serial += 1;
      const order = await payments.createOrder('alice', { amountMinor: 1999, currency: 'EUR' });
      const checkout = await payments.openCheckout(order.id, 'alice');
      if (checkout.kind !== 'attempt') throw new Error(`expected an attempt, got ${checkout.kind}`);
      const { attempt } = checkout;
      const eventId = `evt_${label}_${serial}_${process.pid}`;
      return {
        orderId: order.id,
        attemptId: attempt.id,
        eventId,
        body: succeededBody(eventId, attempt.providerPaymentId ?? '', attempt.id, attempt.amountMinor),
      };
    }

    const deliver = async (body: string) => {
      const response = await intake.receive({
        endpoint: 'stripe',
        rawBody: new TextEncoder().encode(body),
        headers: signedStripeHeaders(body),
      });
      return { status: response.status, text: new TextDecoder().decode(response.body) };
    };

    /** Delivers `bodies` as ONE batch: a gate delivery holds the only slot until all of them queued behind it. */
    async function inOneBatch(bodies: readonly string[]) {
      const gateEvent = await payable('gate');
      const { gate: gated, answers } = await gate.inOneBatch(
        () => deliver(gateEvent.body.replace(gateEvent.eventId, `evt_gate_${gateEvent.eventId}`)),
        () => Promise.all(bodies.map((body) => deliver(body))),
      );
      expect(gated.status).toBe(200);
      return answers;
    }

    const count = async (query: string, ...values: unknown[]) => {
      const text = query.replace(/\$(\d+)/g, (_, i) => (dialect === 'postgres' ? `$${i}` : '?'));
      const compiled = { sql: text, parameters: values, query: { kind: 'RawNode' } } as never;
      const result = await store.db.executeQuery<{ n: number | string }>(compiled);
      return Number(result.rows[0]?.n);
    };
    const orderStatus = async (orderId: string) => (await payments.findOrder(orderId))?.status;
    const receipts = (eventId: string) =>
      count('select count(*) as n from payonce_receipts where external_id = $1', eventId);
    const fulfilJobs = (orderId: string) =>
      count(
        'select count(*) as n from payonce_outbox where topic = $1 and dedupe_key = $2',
        FULFIL_TOPIC,
        `order:${orderId}`,
      );
    const paymentEvents = (eventId: string) =>
      count('select count(*) as n from payonce_payment_events where event_id = $1', eventId);
    const deliveries = (eventId: string) =>
      count('select count(*) as n from payonce_webhook_deliveries where event_key = $1', eventId);
    /** PostgreSQL: how many transactions the handlers of `eventIds` ran in. */
    const writers = (eventIds: readonly string[]) => new Set(eventIds.map((id) => transactionOf.get(id))).size;

    it('distinct events each get one receipt, transition, journal row and job; duplicates replay the stored answer', async () => {
      const paid = await Promise.all(Array.from({ length: 8 }, (_, i) => payable(`batch${i}`)));
      const copies = paid.slice(0, 4);
      lockedAhead.length = 0;
      const answers = await inOneBatch([...paid, ...copies].map((p) => p.body));
      // The batch of the 8 distinct events (their copies run after it, each alone): all 8 locked ahead, in one call.
      if (ahead) expect(lockedAhead).toEqual([{ events: 8, locked: 8 }]);
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
      for (let i = 0; i < 4; i++) expect(answers[8 + i]?.text).toBe(answers[i]?.text);
      for (const p of paid) {
        expect(await orderStatus(p.orderId)).toBe('paid');
        // The intake's (`stripe`), and the payments' (`payments:stripe`) unless the handler applies under the intake's.
        expect(await receipts(p.eventId)).toBe(receiptHeld ? 1 : 2);
        expect(await fulfilJobs(p.orderId)).toBe(1);
        expect(await paymentEvents(p.eventId)).toBe(1);
      }
      for (const [i, p] of paid.entries()) expect(await deliveries(p.eventId)).toBe(i < 4 ? 2 : 1);
      if (dialect === 'postgres') expect(writers(paid.map((p) => p.eventId))).toBe(1);
      const late = await deliver(paid[0]!.body);
      expect(late).toEqual(answers[0]);
      expect(await fulfilJobs(paid[0]!.orderId)).toBe(1);
    });

    it.runIf(ahead)(
      'a read ahead that fails runs each delivery of the batch alone: every one applied once',
      async () => {
        const paid = await Promise.all(Array.from({ length: 5 }, (_, i) => payable(`ahead${i}`)));
        failAhead = true;
        transactionOf.clear();
        try {
          const answers = await inOneBatch(paid.map((p) => p.body));
          expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
        } finally {
          failAhead = false;
        }
        for (const p of paid) {
          expect([await orderStatus(p.orderId), await fulfilJobs(p.orderId), await paymentEvents(p.eventId)]).toEqual([
            'paid',
            1,
            1,
          ]);
        }
        // Each in a transaction of its own.
        expect(writers(paid.map((p) => p.eventId))).toBe(5);
      },
    );

    /** `bodies` as ONE batch, with no statement sent by the handlers after their events are applied. */
    async function inOneBatchNoXid(bodies: readonly string[]) {
      recordXid = false;
      try {
        return await sentStatements(() => inOneBatch(bodies));
      } finally {
        recordXid = true;
      }
    }

    // The reference service's mode: the closing writes of each delivery (order, attempt, job, payment journal row) are
    // held until the next statement, so a batch sends them all with its completions and delivery journal rows.
    it.runIf(dialect === 'postgres' && ahead && receiptHeld)(
      'the closing writes of a batch locked ahead go to the database as ONE statement with its completions',
      async () => {
        const paid = await Promise.all(Array.from({ length: 6 }, (_, i) => payable(`held${i}`)));
        const { result: answers, texts } = await inOneBatchNoXid(paid.map((p) => p.body));
        expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
        const parts = (text: string, write: string) => text.split(write).length - 1;
        const closing = texts.filter((text) => text.startsWith('with ') && text.includes('update "payonce_orders"'));
        // The gate delivery alone in its batch, then the six together: each with its receipts' completions.
        expect(closing.map((text) => parts(text, 'update "payonce_orders"'))).toEqual([1, 6]);
        expect(closing.map((text) => parts(text, 'update "payonce_receipts"'))).toEqual([1, 6]);
        for (const p of paid) {
          expect([await orderStatus(p.orderId), await fulfilJobs(p.orderId), await paymentEvents(p.eventId)]).toEqual([
            'paid',
            1,
            1,
          ]);
          expect([await receipts(p.eventId), await deliveries(p.eventId)]).toEqual([1, 1]);
        }
      },
    );

    it.runIf(dialect === 'postgres')(
      'a delivery of a batch reads, through its own Kysely statements, what an earlier one of the batch wrote',
      async () => {
        const [first, second] = await Promise.all([payable('wrote'), payable('reads')]);
        extra.set(second!.eventId, 'read-order');
        readFirst.set(second!.eventId, { orderId: first!.orderId });
        try {
          const { result: answers } = await inOneBatchNoXid([first!.body, second!.body]);
          expect(answers.map((a) => a.status)).toEqual([200, 200]);
          expect(readFirst.get(second!.eventId)?.status).toBe('paid');
        } finally {
          extra.delete(second!.eventId);
          readFirst.delete(second!.eventId);
        }
      },
    );

    it.runIf(dialect === 'postgres')(
      'an event found by its merchant reference after its payment was applied in the same batch changes nothing',
      async () => {
        const p = await payable('byid');
        const referenced = `evt_byref_${serial}_${process.pid}`;
        byReference.set(referenced, p.attemptId);
        try {
          const { result: answers } = await inOneBatchNoXid([p.body, p.body.replace(p.eventId, referenced)]);
          expect(answers.map((a) => a.status)).toEqual([200, 200]);
        } finally {
          byReference.delete(referenced);
        }
        expect([await orderStatus(p.orderId), await fulfilJobs(p.orderId)]).toEqual(['paid', 1]);
        const decisions = await store.db.executeQuery<{ event_id: string; decision: string }>({
          sql: 'select event_id, decision from payonce_payment_events where event_id in ($1, $2) order by decision',
          parameters: [p.eventId, referenced],
          query: { kind: 'RawNode' },
        } as never);
        expect(decisions.rows).toEqual([
          { event_id: p.eventId, decision: 'applied' },
          { event_id: referenced, decision: 'unchanged' },
        ]);
      },
    );

    it('an event delivered again after its intake receipt was purged is answered 200 and applies nothing', async () => {
      const p = await payable('purged');
      expect((await deliver(p.body)).status).toBe(200);
      const purge = 'delete from payonce_receipts where provider = $1 and external_id = $2'.replace(
        /\$(\d+)/g,
        (_, i) => (dialect === 'postgres' ? `$${i}` : '?'),
      );
      await store.db.executeQuery({
        sql: purge,
        parameters: ['stripe', p.eventId],
        query: { kind: 'RawNode' },
      } as never);
      const again = await deliver(p.body);
      expect(again.status).toBe(200);
      expect([await orderStatus(p.orderId), await fulfilJobs(p.orderId), await paymentEvents(p.eventId)]).toEqual([
        'paid',
        1,
        1,
      ]);
    });

    it('a handler that throws inside a batch rolls back only its own writes and gets a 5xx; the others commit', async () => {
      const paid = await Promise.all(Array.from({ length: 6 }, (_, i) => payable(`fail${i}`)));
      const failing = paid[2]!;
      extra.set(failing.eventId, 'throw');
      const answers = await inOneBatch(paid.map((p) => p.body));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 500, 200, 200, 200]);
      expect(await orderStatus(failing.orderId)).toBe('awaiting_payment');
      expect([await receipts(failing.eventId), await fulfilJobs(failing.orderId)]).toEqual([0, 0]);
      expect(await paymentEvents(failing.eventId)).toBe(0);
      expect(await deliveries(failing.eventId)).toBe(1); // its failure is journaled, outside the rolled-back writes
      const others = paid.filter((p) => p !== failing);
      for (const p of others) {
        expect(await orderStatus(p.orderId)).toBe('paid');
        expect(await fulfilJobs(p.orderId)).toBe(1);
      }
      if (dialect === 'postgres') expect(writers(others.map((p) => p.eventId))).toBe(1);
      extra.delete(failing.eventId);
      expect((await deliver(failing.body)).status).toBe(200);
      expect([await orderStatus(failing.orderId), await fulfilJobs(failing.orderId)]).toEqual(['paid', 1]);
    });

    // MySQL/MariaDB check every constraint at once (no deferred constraint makes a COMMIT fail on demand).
    it.skipIf(dialect === 'mysql')(
      'a commit that fails acknowledges no delivery of the batch and keeps none of its writes',
      async () => {
        const paid = await Promise.all(Array.from({ length: 5 }, (_, i) => payable(`commit${i}`)));
        extra.set(paid[3]!.eventId, 'poison-commit');
        const answers = await inOneBatch(paid.map((p) => p.body));
        expect(answers.map((a) => a.status)).toEqual(Array(5).fill(503));
        for (const p of paid) {
          expect(await orderStatus(p.orderId)).toBe('awaiting_payment');
          expect([await receipts(p.eventId), await fulfilJobs(p.orderId), await paymentEvents(p.eventId)]).toEqual([
            0, 0, 0,
          ]);
        }
        extra.clear();
        const again = await Promise.all(paid.map((p) => deliver(p.body)));
        expect(again.map((a) => a.status)).toEqual(Array(5).fill(200));
        for (const p of paid) expect(await fulfilJobs(p.orderId)).toBe(1);
      },
    );

    it.skipIf(dialect === 'sqlite')('a connection lost during the batch acknowledges none of it', async () => {
      const paid = await Promise.all(Array.from({ length: 4 }, (_, i) => payable(`lost${i}`)));
      extra.set(paid[2]!.eventId, 'kill-connection');
      const answers = await inOneBatch(paid.map((p) => p.body));
      expect(answers.map((a) => a.status)).toEqual(Array(4).fill(503));
      for (const p of paid) {
        expect([await orderStatus(p.orderId), await receipts(p.eventId), await fulfilJobs(p.orderId)]).toEqual([
          'awaiting_payment',
          0,
          0,
        ]);
      }
      extra.clear();
      const again = await Promise.all(paid.map((p) => deliver(p.body)));
      expect(again.map((a) => a.status)).toEqual(Array(4).fill(200));
    });
  });
}
