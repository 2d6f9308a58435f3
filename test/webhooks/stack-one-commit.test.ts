import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidOption, TransactionEnded } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import type { StackTransactions } from '../../packages/payonce/src/stores/sql/stack-transactions.js';
import { drizzleTransactions } from '../../packages/payonce/src/tx/drizzle.js';
import { type PgTransactionClient, pgTransactions } from '../../packages/payonce/src/tx/pg.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import type { DeliveryRecord } from '../../packages/payonce/src/webhooks/journal/delivery-record.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { webhookEndpoint } from '../../packages/payonce/src/webhooks/webhook-endpoint.js';
import { openStackFixture, type StackStore, type StackTarget } from '../stack/stack-target.js';
import { tsChildArgs } from '../support/ts-child.js';
import { appPool, EFFECT_TOPIC, STACK_KINDS, type StackKind, stackIntake } from './support/stack-intake.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from './support/stripe-deliveries.js';
import { postBytes, startWebhookApp } from './support/webhook-apps.js';

// The one-commit intake in a transaction payonce OPENS on the application's stack (issue #41): per delivery ONE
// transaction of node-postgres / Drizzle holds the receipt, the application's own write and the outbox row.

const child = fileURLToPath(new URL('./stack-one-commit-child.ts', import.meta.url));
let serial = 0;
const ids = (label: string) => {
  serial += 1;
  const tag = `${label}_${process.pid}_${serial}`;
  return { eventId: `evt_${tag}`, invoiceId: `in_${tag}` };
};

describe('postgres: intake endpoint with transaction = the stack of the application', () => {
  let fixture: { target: StackTarget; store: StackStore; drop(): Promise<void> };
  let pool: pg.Pool;
  beforeAll(async () => {
    fixture = await openStackFixture('postgres');
    pool = appPool(fixture.target.url, fixture.target.schema ?? '');
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await fixture?.drop();
  });

  const effectsOf = async (eventId: string) =>
    Number(
      (
        await sql<{ n: string }>`select count(*) as n from stack_effects where event_id = ${eventId}`.execute(
          fixture.store.db,
        )
      ).rows[0]?.n,
    );
  const jobsOf = async (eventId: string) =>
    Number(
      (
        await sql<{
          n: string;
        }>`select count(*) as n from payonce_outbox where topic = ${EFFECT_TOPIC} and dedupe_key = ${eventId}`.execute(
          fixture.store.db,
        )
      ).rows[0]?.n,
    );
  const deliver = (intake: ReturnType<typeof stackIntake>['intake'], body: string) =>
    intake.receive({ endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) });

  describe.each(STACK_KINDS)('%s', (kind: StackKind) => {
    let failOnce: Set<string>;
    let retryOnce: Set<string>;
    let runs: Map<string, number>;
    let app: ReturnType<typeof stackIntake>;
    beforeAll(() => {
      failOnce = new Set();
      retryOnce = new Set();
      runs = new Map();
      app = stackIntake(kind, fixture.store as unknown as SqlStore<unknown>, pool, (eventId) => {
        runs.set(eventId, (runs.get(eventId) ?? 0) + 1);
        if (failOnce.delete(eventId)) throw new Error('the business step failed after its writes');
        if (retryOnce.delete(eventId)) {
          // As an ORM wraps it: the driver's serialization failure is the cause.
          const driver = Object.assign(new Error('could not serialize access'), { code: '40001' });
          throw new Error('the ORM query failed', { cause: driver });
        }
      });
      app.intake.on('delivery', ({ record }) => {
        records.push(record);
      });
    });
    const records: DeliveryRecord[] = [];
    const receipt = (eventId: string) => app.guard.find(new RequestKey('stripe', eventId));

    it('a signed delivery commits the receipt, the stack write and the outbox row together; a redelivery replays', async () => {
      const { eventId, invoiceId } = ids(kind);
      const body = invoicePaidBody(eventId, invoiceId);
      const first = await deliver(app.intake, body);
      expect(first.status).toBe(200);
      expect(Buffer.from(first.body).toString()).toBe(`{"received":true,"invoice":"${invoiceId}"}`);
      expect([await effectsOf(eventId), await jobsOf(eventId)]).toEqual([1, 1]);
      expect((await receipt(eventId))?.status).toBe('completed');
      const again = await deliver(app.intake, body);
      expect([again.status, Buffer.from(again.body)]).toEqual([200, Buffer.from(first.body)]);
      expect([await effectsOf(eventId), await jobsOf(eventId), runs.get(eventId)]).toEqual([1, 1, 1]);
      const rows = records.filter((row) => row.eventKey === eventId);
      expect(rows.map((row) => [row.decision, row.outcome])).toEqual([
        ['new', 'completed'],
        ['duplicate', 'replayed'],
      ]);
    });

    it('a handler that throws after its writes leaves nothing and gets a retryable 500; the redelivery runs once', async () => {
      const { eventId, invoiceId } = ids(kind);
      failOnce.add(eventId);
      const body = invoicePaidBody(eventId, invoiceId);
      const failed = await deliver(app.intake, body);
      expect(failed.status).toBe(500);
      expect([await effectsOf(eventId), await jobsOf(eventId), await receipt(eventId)]).toEqual([0, 0, null]);
      const retried = await deliver(app.intake, body);
      expect(retried.status).toBe(200);
      expect([await effectsOf(eventId), await jobsOf(eventId), runs.get(eventId)]).toEqual([1, 1, 2]);
    });

    it('a transient error wrapped by the stack (serialization failure as cause) runs the whole transaction again', async () => {
      const { eventId, invoiceId } = ids(kind);
      retryOnce.add(eventId);
      const answer = await deliver(app.intake, invoicePaidBody(eventId, invoiceId));
      expect(answer.status).toBe(200);
      expect([await effectsOf(eventId), await jobsOf(eventId), runs.get(eventId)]).toEqual([1, 1, 2]);
    });

    it('10 parallel deliveries of one event apply it once', async () => {
      const { eventId, invoiceId } = ids(kind);
      const body = invoicePaidBody(eventId, invoiceId);
      const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(app.intake, body)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(new Set(answers.map((a) => Buffer.from(a.body).toString())).size).toBe(1);
      expect([await effectsOf(eventId), await jobsOf(eventId), runs.get(eventId)]).toEqual([1, 1, 1]);
    });

    it('a redelivery meeting the event in flight elsewhere is answered 409 at once, without waiting in its transaction', async () => {
      const { eventId, invoiceId } = ids(kind);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let claimed: () => void = () => {};
      const running = new Promise<void>((resolve) => {
        claimed = resolve;
      });
      const body = invoicePaidBody(eventId, invoiceId);
      // Another worker holds a committed claim (the default mode commits it before its handler runs).
      const key = new RequestKey('stripe', eventId);
      const elsewhere = app.guard.run(
        key,
        async () => {
          claimed();
          await held;
        },
        { payload: Buffer.from(body) },
      );
      await running;
      const answer = await deliver(app.intake, body);
      release();
      await elsewhere;
      expect([answer.status, records.at(-1)?.error]).toEqual([409, expect.stringContaining('REQUEST_IN_PROGRESS')]);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(JSON.parse(Buffer.from(answer.body).toString()).code).toBe('REQUEST_IN_PROGRESS');
      expect(await effectsOf(eventId)).toBe(0);
    });

    it('SIGKILL after the writes, before the commit, leaves nothing; the redelivery applies once', async () => {
      const { eventId, invoiceId } = ids(`${kind}_kill`);
      const proc = spawn(
        process.execPath,
        tsChildArgs(child, [kind, fixture.target.url, fixture.target.schema ?? '']),
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      const seen = (pattern: RegExp) =>
        new Promise<string>((resolve, reject) => {
          const check = () => {
            if (pattern.test(out)) resolve(out);
          };
          proc.stdout?.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            check();
          });
          proc.once('exit', (code) => reject(new Error(`child exited (${code}) early: ${out}`)));
          check();
        });
      const url = /ready (\S+)\n/.exec(await seen(/ready \S+\n/))?.[1] ?? '';
      const body = invoicePaidBody(eventId, invoiceId);
      postBytes(`${url}/webhooks/stripe`, body, signedStripeHeaders(body)).catch(() => {}); // never answered
      await seen(new RegExp(`written ${eventId}`));
      expect(await effectsOf(eventId)).toBe(0); // written in the open transaction, not committed
      proc.kill('SIGKILL');
      await once(proc, 'exit');
      expect(proc.signalCode).toBe('SIGKILL');
      expect([await effectsOf(eventId), await jobsOf(eventId), await receipt(eventId)]).toEqual([0, 0, null]);
      const server = await startWebhookApp('express', app.intake);
      try {
        const retried = await postBytes(`${server.url}/webhooks/stripe`, body, signedStripeHeaders(body));
        expect(retried.status).toBe(200);
      } finally {
        await server.close();
      }
      expect([await effectsOf(eventId), await jobsOf(eventId)]).toEqual([1, 1]);
    }, 60_000);
  });

  it('types the handler from the opener: tx is the Drizzle transaction', () => {
    const db = drizzle(pool);
    type DrizzleTx = Parameters<Parameters<typeof db.transaction>[0]>[0];
    const endpoint = webhookEndpoint({
      profile: stripeProfile(),
      scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
      transaction: drizzleTransactions(db),
      handler: async (_event, { tx, payonceTx }) => {
        expectTypeOf(tx).toEqualTypeOf<DrizzleTx>();
        expectTypeOf(payonceTx).toBeUnknown();
      },
    });
    expectTypeOf(endpoint.transaction).toEqualTypeOf<StackTransactions<DrizzleTx>>();
    expect(endpoint.transaction.stack).toBe('drizzle (postgres)');
  });

  it('lends the handler its tx and payonceTx: once it returned, they refuse use (TransactionEnded), nothing autocommits', async () => {
    let lent: { tx: PgTransactionClient; payonceTx: unknown } | undefined;
    const intake = createWebhookIntake({
      guard: new IdempotencyGuard(fixture.store),
      endpoints: {
        stripe: webhookEndpoint({
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
          transaction: pgTransactions(pool),
          handler: async (_event, { tx, payonceTx }) => {
            lent = { tx, payonceTx };
            return { received: true };
          },
        }),
      },
    });
    const { eventId, invoiceId } = ids('lent');
    expect((await deliver(intake, invoicePaidBody(eventId, invoiceId))).status).toBe(200);
    const kept = lent!;
    const late = { text: 'insert into stack_effects (event_id) values ($1)', values: [eventId] };
    await expect(Promise.resolve().then(() => kept.tx.query(late))).rejects.toThrow(TransactionEnded);
    await expect(sql`select 1`.execute(kept.payonceTx as Kysely<unknown>)).rejects.toThrow(TransactionEnded);
    expect(await effectsOf(eventId)).toBe(0);
  });

  it('refuses a wrong opener object, and an opener of another dialect than the store, with InvalidOption', async () => {
    const common = { profile: stripeProfile(), scheme: stripeScheme({ secrets: [STRIPE_SECRET] }), handler: () => {} };
    const guard = new IdempotencyGuard(fixture.store);
    for (const wrong of [{}, pool, drizzle(pool), 'yes', 1, { dialect: 'oracle', transaction: () => {} }]) {
      const endpoints = { stripe: { ...common, transaction: wrong as never } };
      expect(() => createWebhookIntake({ guard, endpoints })).toThrow(InvalidOption);
      expect(() => createWebhookIntake({ guard, endpoints })).toThrow(/endpoints\.stripe\.transaction/);
    }
    const mysqlOpener: StackTransactions<unknown> = {
      dialect: 'mysql',
      stack: 'test',
      transaction: async () => {},
    } as never;
    const endpoints = { stripe: { ...common, transaction: mysqlOpener } };
    expect(() => createWebhookIntake({ guard, endpoints })).toThrow(/mysql SQL store/);
    const memory = new IdempotencyGuard(new MemoryStore());
    const pgOpener = { stripe: { ...common, transaction: drizzleTransactions(drizzle(pool)) } };
    expect(() => createWebhookIntake({ guard: memory, endpoints: pgOpener })).toThrow(InvalidOption);
  });
});
