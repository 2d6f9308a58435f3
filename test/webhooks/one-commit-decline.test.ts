import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import type { WebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { WebhookDecline } from '../../packages/payonce/src/webhooks/intake-decline.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../outbox/sql-backends.js';
import { createCreditsTable, creditsIntake, creditsOf } from './support/credits-app.js';
import { invoicePaidBody, signedStripeHeaders } from './support/stripe-deliveries.js';

// Issue #34 item 30: docs/webhooks.md now says what a `WebhookDecline` thrown AFTER the handler wrote does to those
// writes in the one-commit mode. The decline is an answer, not a failure: the handler's writes commit with the
// stored decline (one commit), and every redelivery replays the decline without running the handler again.

for (const dialect of sqlDialectsFromEnv()) {
  describe(`${dialect}: a WebhookDecline thrown after writes in a one-commit endpoint`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let guard: ReturnType<typeof creditsIntake>['guard'];
    let intake: WebhookIntake;
    let runs = 0;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await createCreditsTable(store);
      // The suite's credits app: its handler inserts a credit through context.tx, then this hook declines.
      ({ intake, guard } = creditsIntake(store, () => {
        runs += 1;
        throw new WebhookDecline('amount_mismatch', 'the invoice amount does not match the order');
      }));
    }, 60_000);
    afterAll(async () => {
      await backend?.drop();
    });

    it('commits those writes with the stored decline; redeliveries replay the decline and write nothing more', async () => {
      const eventId = `evt_decline_${process.pid}`;
      const invoiceId = `in_decline_${process.pid}`;
      const body = invoicePaidBody(eventId, invoiceId);
      const deliver = () =>
        intake.receive({ endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) });
      const first = await deliver();
      const text = Buffer.from(first.body).toString('utf8');
      expect(first.status).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ received: true, declined: { code: 'amount_mismatch' } });
      expect(await creditsOf(store, invoiceId)).toBe(1); // the write before the decline committed
      const receipt = await guard.find(new RequestKey('stripe', eventId));
      expect(receipt?.status).toBe('completed');

      const again = await deliver();
      expect([again.status, Buffer.from(again.body).toString('utf8')]).toEqual([200, text]);
      expect(runs).toBe(1);
      expect(await creditsOf(store, invoiceId)).toBe(1);
    });
  });
}
