import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { SqlExecutor } from '../../packages/payonce/src/stores/sql/joined-transaction.js';
import type { StackTransactions } from '../../packages/payonce/src/stores/sql/stack-transactions.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { webhookEndpoint } from '../../packages/payonce/src/webhooks/webhook-endpoint.js';
import { openStackFixture, type StackStore, type StackTarget } from '../stack/stack-target.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from './support/stripe-deliveries.js';

// Dialect independence of the intake's stack mode: a minimal opener of the application's own better-sqlite3
// connection (no adapter of payonce/tx exists for it in this branch) is enough for the one-commit endpoint.

/**
 * The application's transactions on its own better-sqlite3 connection: one at a time (one connection), each
 * `BEGIN IMMEDIATE … COMMIT`, rolled back when the work throws.
 */
function sqliteTransactions(db: Database.Database): StackTransactions<Database.Database> {
  const executor: SqlExecutor = {
    dialect: 'sqlite',
    async execute(text, parameters) {
      const statement = db.prepare(text);
      if (statement.reader) return { rows: statement.all(...parameters) };
      const info = statement.run(...parameters);
      return { rows: [], numAffectedRows: BigInt(info.changes) };
    },
  };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    dialect: 'sqlite',
    stack: 'better-sqlite3 (test)',
    transaction(work) {
      const run = async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(db, executor);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      };
      const next = queue.then(run, run);
      queue = next.catch(() => {});
      return next;
    },
  };
}

describe('sqlite: intake endpoint on a better-sqlite3 opener of the application', () => {
  let fixture: { target: StackTarget; store: StackStore; drop(): Promise<void> };
  let connection: Database.Database;
  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    connection = new Database(fixture.target.url);
    connection.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    connection?.close();
    await fixture?.drop();
  });

  it('commits receipt and write together; a throw leaves nothing; 10 parallel copies apply once', async () => {
    const failOnce = new Set<string>();
    const guard = new IdempotencyGuard(fixture.store);
    const intake = createWebhookIntake({
      guard,
      endpoints: {
        stripe: webhookEndpoint({
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
          transaction: sqliteTransactions(connection),
          handler: async (event, { tx }) => {
            tx.prepare('insert into stack_effects (event_id) values (?)').run(event.eventId);
            if (failOnce.delete(event.eventId ?? '')) throw new Error('failed after the write');
            return { received: true };
          },
        }),
      },
    });
    const effectsOf = (id: string) =>
      (connection.prepare('select count(*) as n from stack_effects where event_id = ?').get(id) as { n: number }).n;
    const id = `evt_sqlite_${process.pid}`;
    const body = invoicePaidBody(id, `in_${id}`);
    const deliver = () =>
      intake.receive({ endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) });
    failOnce.add(id);
    expect((await deliver()).status).toBe(500);
    expect([effectsOf(id), await guard.find(new RequestKey('stripe', id))]).toEqual([0, null]);
    const answers = await Promise.all(Array.from({ length: 10 }, deliver));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(effectsOf(id)).toBe(1);
    expect((await guard.find(new RequestKey('stripe', id)))?.status).toBe('completed');
  });
});
