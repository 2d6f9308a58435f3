import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../packages/payonce/src/core/clock.js';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { deliveryId } from '../../packages/payonce/src/webhooks/journal/delivery-id.js';
import type { DeliveryJournal } from '../../packages/payonce/src/webhooks/journal/delivery-journal.js';
import type { DeliveryRecord } from '../../packages/payonce/src/webhooks/journal/delivery-record.js';
import { MemoryDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { SqlDeliveryJournal } from '../../packages/payonce/src/webhooks/journal/sql-delivery-journal.js';
import type { TestBackend } from '../contract/backend.js';
import { backendFactories } from '../contract/backends/index.js';
import { bodyBytes } from './fixtures.js';
import { paymeHeaders, stripeHeaders } from './intake-deliveries.js';
import { type IntakeWorld, send, startIntakeWorld, WEBHOOK_BACKENDS } from './intake-support.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function row(overrides: Partial<DeliveryRecord>): DeliveryRecord {
  return {
    id: deliveryId(),
    receivedAtMs: T0,
    provider: 'stripe',
    eventKey: 'evt_1',
    eventType: 'payment_intent.succeeded',
    signature: 'valid',
    decision: 'new',
    outcome: 'completed',
    responseStatus: 200,
    error: null,
    durationMs: 3,
    objectId: 'pi_1',
    paymentId: 'pi_1',
    merchantReference: 'order-1',
    amountMinor: 9_007_199_254_740_991,
    currency: 'EUR',
    payload: '{"id":"evt_1"}',
    ...overrides,
  };
}

interface JournalUnderTest {
  readonly journal: DeliveryJournal;
  readonly clock: ManualClock;
  cleanup(): Promise<void>;
}

async function journalOn(backendName: (typeof WEBHOOK_BACKENDS)[number]): Promise<JournalUnderTest> {
  const clock = new ManualClock(T0);
  if (backendName === 'memory')
    return { journal: new MemoryDeliveryJournal({ clock }), clock, cleanup: async () => {} };
  const backend: TestBackend = await (await backendFactories[backendName]())();
  const store = (await backend.open()) as unknown as ConstructorParameters<typeof SqlDeliveryJournal>[0];
  return { journal: new SqlDeliveryJournal(store, { clock }), clock, cleanup: () => backend.cleanup() };
}

for (const backend of WEBHOOK_BACKENDS) {
  describe(`${backend}: delivery journal`, () => {
    let subject: JournalUnderTest;
    beforeAll(async () => {
      subject = await journalOn(backend);
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it('round-trips every field and answers by object id, payment id or merchant reference, oldest first', async () => {
      const { journal } = subject;
      const a = row({ receivedAtMs: T0 + 10, objectId: 'ch_1', paymentId: 'pi_1', merchantReference: null });
      const b = row({ receivedAtMs: T0, decision: 'duplicate', outcome: 'replayed', durationMs: 0 });
      const c = row({
        receivedAtMs: T0 + 10,
        provider: 'yookassa',
        eventKey: null,
        eventType: null,
        signature: 'signature_mismatch',
        decision: 'rejected',
        outcome: 'rejected',
        responseStatus: 401,
        error: 'WEBHOOK_SIGNATURE_INVALID: no',
        objectId: null,
        paymentId: null,
        merchantReference: 'order-1',
        amountMinor: null,
        currency: null,
        payload: null,
      });
      const unrelated = row({ objectId: 'pi_2', paymentId: 'pi_2', merchantReference: 'order-2' });
      for (const r of [a, b, c, unrelated]) await journal.record(r);
      expect(await journal.forPayment('pi_1')).toEqual([b, a]);
      expect(await journal.forPayment('ch_1')).toEqual([a]);
      expect(await journal.forPayment('order-1')).toEqual([b, c]);
      expect(await journal.forPayment({ reference: 'order-1', provider: 'yookassa' })).toEqual([c]);
      expect(await journal.forPayment('nothing')).toEqual([]);
    });

    it('orders rows received in the same millisecond by creation (UUID v7 ids)', async () => {
      const ids = Array.from({ length: 50 }, () => deliveryId());
      expect([...ids].sort()).toEqual(ids);
      for (const id of [...ids].reverse())
        await subject.journal.record(row({ id, objectId: 'same-ms', receivedAtMs: T0 }));
      expect((await subject.journal.forPayment('same-ms')).map((r) => r.id)).toEqual(ids);
    });

    it('purges rows received before the cut-off (age or Date) and keeps the rest', async () => {
      const { journal, clock } = subject;
      clock.set(T0 + 10 * 86_400_000);
      await journal.record(row({ objectId: 'purge', receivedAtMs: T0 + 2 * 86_400_000 }));
      await journal.record(row({ objectId: 'purge', receivedAtMs: T0 + 8 * 86_400_000 }));
      await journal.record(row({ objectId: 'purge', receivedAtMs: T0 + 9 * 86_400_000 }));
      expect(await journal.purge({ olderThan: 7 * 86_400_000 })).toBeGreaterThanOrEqual(1);
      expect((await journal.forPayment('purge')).map((r) => r.receivedAtMs)).toEqual([
        T0 + 8 * 86_400_000,
        T0 + 9 * 86_400_000,
      ]);
      expect(await journal.purge({ olderThan: new Date(T0 + 9 * 86_400_000) })).toBe(1);
      expect(await journal.purge({ olderThan: new Date(T0 + 9 * 86_400_000) })).toBe(0);
      expect((await journal.forPayment('purge')).length).toBe(1);
      await expect(journal.purge({ olderThan: -1 })).rejects.toBeInstanceOf(InvalidOption);
      await expect(journal.purge({ olderThan: new Date(Number.NaN) })).rejects.toBeInstanceOf(InvalidOption);
    });
  });

  describe(`${backend}: journal redaction of real deliveries`, () => {
    let world: IntakeWorld;
    beforeAll(async () => {
      world = await startIntakeWorld(backend);
    });
    afterAll(async () => {
      await world?.close();
    });

    /** Placeholder personal data and secrets that must never reach a stored row. */
    const SECRETS = {
      name: 'Jane Placeholder',
      email: 'jane.placeholder@example.com',
      noteEmail: 'billing.contact@example.org',
      phone: '+10000000000',
      card: '4242424242424242',
      spacedCard: '4000 0566 5566 5556',
      cvc: 'cvc-placeholder-987', // not bare digits: a bare '987' can occur inside a stored timestamp
      clientSecret: 'pi_secret_placeholder_value',
    };

    async function storedRows(): Promise<unknown[]> {
      if (world.journal instanceof MemoryDeliveryJournal) return [...world.journal.all()];
      const db = (world.store as unknown as { db: Kysely<{ payonce_webhook_deliveries: Record<string, unknown> }> }).db;
      return db.selectFrom('payonce_webhook_deliveries').selectAll().execute();
    }

    it('journals an accepted event whose ids redaction lengthens past their columns, cut to fit', async () => {
      const nowSec = Math.floor(world.clock.now() / 1000);
      // Within the intake's limits (160, 200) as sent; `a@b.cc` (6) becomes `[REDACTED]` (10) in the journal.
      const id = `x0${backend}${',a@b.cc'.repeat(30)}`.slice(0, 160);
      const reference = `r${',a@b.cc'.repeat(28)}`;
      expect(id).toHaveLength(160);
      const body = bodyBytes(
        JSON.stringify({
          id,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec,
          data: {
            object: {
              id: `pi_long_${backend}`,
              object: 'payment_intent',
              amount: 2500,
              currency: 'eur',
              metadata: { merchant_reference: reference },
            },
          },
        }),
      );
      const answer = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec));
      expect(answer.status).toBe(200);
      const [delivery] = await world.journal.forPayment(`pi_long_${backend}`);
      expect(delivery?.eventKey).toHaveLength(160);
      expect(delivery?.eventKey?.endsWith('…')).toBe(true);
      expect(delivery?.eventKey).not.toContain('a@b.cc');
      expect(Array.from(delivery?.merchantReference ?? '')).toHaveLength(200);
      // The redelivery is a replay of the stored answer, journaled too.
      expect((await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec))).status).toBe(200);
      expect(await world.journal.forPayment(`pi_long_${backend}`)).toHaveLength(2);
    });

    it('never stores configured sensitive fields or e-mail/card values, but keeps what explains the payment', async () => {
      const nowSec = Math.floor(world.clock.now() / 1000);
      const id = `evt_pii_${backend}`;
      const body = bodyBytes(
        JSON.stringify({
          id,
          object: 'event',
          type: 'payment_intent.succeeded',
          created: nowSec,
          data: {
            object: {
              id: `pi_pii_${backend}`,
              object: 'payment_intent',
              amount: 2500,
              currency: 'eur',
              client_secret: SECRETS.clientSecret,
              receipt_email: SECRETS.email,
              description: `Order for ${SECRETS.noteEmail}, card ${SECRETS.spacedCard}`,
              metadata: { merchant_reference: `order-pii-${backend}` },
              billing_details: { name: SECRETS.name, phone: SECRETS.phone, address: { line1: 'Placeholder 1' } },
              payment_method_details: {
                card: { number: SECRETS.card, cvc: SECRETS.cvc, brand: 'visa', last4: '4242' },
              },
            },
          },
        }),
      );
      expect((await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec))).status).toBe(200);
      // A forged copy is journaled as rejected: its payload is redacted too.
      const forged = await send(`${world.url}/webhooks/stripe`, body, stripeHeaders(body, nowSec, 'whsec_wrong'));
      expect(forged.status).toBe(401);
      // Payme puts the customer's phone in params.account.
      const check = {
        method: 'CheckPerformTransaction',
        params: { amount: 500000, account: { phone: SECRETS.phone } },
      };
      expect((await send(`${world.url}/webhooks/payme`, JSON.stringify(check), paymeHeaders())).status).toBe(200);

      const stored = JSON.stringify(await storedRows());
      for (const [what, value] of Object.entries(SECRETS)) expect(stored, what).not.toContain(value);
      expect(stored).not.toContain('4000056655665556');
      expect(stored).toContain('[REDACTED]');
      const [delivery] = await world.journal.forPayment(`order-pii-${backend}`);
      const payload = JSON.parse(delivery?.payload ?? 'null');
      expect(payload.data.object).toMatchObject({
        amount: 2500,
        currency: 'eur',
        receipt_email: '[REDACTED]',
        billing_details: '[REDACTED]',
        client_secret: '[REDACTED]',
        payment_method_details: { card: { number: '[REDACTED]', cvc: '[REDACTED]', brand: 'visa', last4: '4242' } },
        description: 'Order for [REDACTED], card [REDACTED]',
      });
    });
  });
}
