import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import express from 'express';
import type { FastifyRequest } from 'fastify';
import type { Context } from 'hono';
import type { Kysely, Transaction } from 'kysely';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { HandlerTransactionOf, Store } from '../../packages/payonce/src/core/store.js';
import { expressIdempotencyKey, expressTransaction } from '../../packages/payonce/src/http/express-idempotency-key.js';
import { fastifyTransaction } from '../../packages/payonce/src/http/fastify-idempotency-key.js';
import { honoTransaction } from '../../packages/payonce/src/http/hono-idempotency-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import type { MemoryStore } from '../../packages/payonce/src/stores/memory/memory-store.js';
import type { RedisStore } from '../../packages/payonce/src/stores/redis/redis-store.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { drizzleTransactions } from '../../packages/payonce/src/tx/drizzle.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import type {
  TransactionalWebhookContext,
  WebhookContext,
} from '../../packages/payonce/src/webhooks/intake-options.js';
import { stripeObject } from '../../packages/payonce/src/webhooks/providers/event-objects.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { webhookEndpoint } from '../../packages/payonce/src/webhooks/webhook-endpoint.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from '../webhooks/support/stripe-deliveries.js';

// Issue #34 item 23, type-level: this file is type-checked by `tsc -p tsconfig.json` (npm test's typecheck), where
// each `expectTypeOf` is a compile-time assertion; the old types fail to compile here (a guard declared as plain
// `IdempotencyGuard` gave `context.tx: never`; an endpoint object in a variable widened `transaction: true` to
// `boolean`, TS2322; `expressTransaction(req)` was `unknown` with no way to type it from the guard). The run-time
// parts check that the typed forms also work when run.

interface AppDb {
  credits: { invoice_id: string; amount_minor: number };
}

const dir = mkdtempSync(join(tmpdir(), 'payonce-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function openStore(name: string): Promise<SqliteStore<AppDb>> {
  const store = await SqliteStore.open<AppDb>(join(dir, `${name}.db`));
  await store.migrate();
  await store.db.schema
    .createTable('credits')
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'integer', (c) => c.notNull())
    .execute();
  return store;
}

const credits = (db: Kysely<AppDb>) => db.selectFrom('credits').selectAll().execute();
const delivery = (eventId: string, invoiceId: string) => {
  const body = invoicePaidBody(eventId, invoiceId);
  return { endpoint: 'stripe', rawBody: Buffer.from(body), headers: signedStripeHeaders(body) };
};

describe('transaction types of the one-commit modes', () => {
  it('keeps never for store types without transactions, and unknown (not never) for the plain Store', () => {
    expectTypeOf<HandlerTransactionOf<SqliteStore<AppDb>>>().toEqualTypeOf<Transaction<AppDb>>();
    expectTypeOf<HandlerTransactionOf<MemoryStore>>().toBeNever();
    expectTypeOf<HandlerTransactionOf<RedisStore>>().toBeNever();
    expectTypeOf<HandlerTransactionOf<Store>>().toBeUnknown();
  });

  it('a guard declared as plain IdempotencyGuard: context.tx is unknown, and a handler may state its type', async () => {
    const store = await openStore('plain-guard');
    const guard: IdempotencyGuard = new IdempotencyGuard(store); // declared without its store type
    const intake = createWebhookIntake({
      guard,
      endpoints: {
        stripe: {
          transaction: true,
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
          handler: async (event, { tx }: TransactionalWebhookContext<Transaction<AppDb>>) => {
            const invoice = stripeObject(event, 'invoice');
            if (invoice === null) return;
            await tx
              .insertInto('credits')
              .values({ invoice_id: invoice.id, amount_minor: invoice.amount_paid ?? 0 })
              .execute();
          },
        },
        inline: {
          transaction: true,
          profile: stripeProfile(),
          scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
          handler: (_event, context) => {
            expectTypeOf(context.tx).toBeUnknown(); // was never: any use failed far from the cause
          },
        },
      },
    });
    expect((await intake.receive(delivery('evt_types_plain', 'in_types_plain'))).status).toBe(200);
    expect(await credits(store.db)).toEqual([{ invoice_id: 'in_types_plain', amount_minor: 2500 }]);
    await store.close();
  });

  it('an endpoint in a variable, built with webhookEndpoint, keeps transaction: true and types context.tx', async () => {
    const store = await openStore('variable-endpoint');
    const stripe = webhookEndpoint<Transaction<AppDb>>({
      transaction: true,
      profile: stripeProfile(),
      scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
      handler: async (event, { tx }) => {
        expectTypeOf(tx).toEqualTypeOf<Transaction<AppDb>>();
        const invoice = stripeObject(event, 'invoice');
        if (invoice !== null)
          await tx.insertInto('credits').values({ invoice_id: invoice.id, amount_minor: 1 }).execute();
      },
    });
    expectTypeOf(stripe.transaction).toEqualTypeOf<true>();
    const intake = createWebhookIntake({ guard: new IdempotencyGuard(store), endpoints: { stripe } }); // was TS2322
    expect((await intake.receive(delivery('evt_types_var', 'in_types_var'))).status).toBe(200);
    expect(await credits(store.db)).toEqual([{ invoice_id: 'in_types_var', amount_minor: 1 }]);
    await store.close();
  });

  it('expressTransaction(req, guard) is the guard store’s Transaction (fastify and hono alike), and works', async () => {
    const store = await openStore('express-tx');
    const guard = new IdempotencyGuard(store);
    expectTypeOf((request: FastifyRequest) => fastifyTransaction(request, guard)).returns.toEqualTypeOf<
      Transaction<AppDb>
    >();
    expectTypeOf((c: Context) => honoTransaction(c, guard)).returns.toEqualTypeOf<Transaction<AppDb>>();
    const app = express();
    app.post(
      '/v1/payments',
      expressIdempotencyKey({ guard, transaction: true, principal: () => 'acct_placeholder' }),
      async (req, res) => {
        const tx = expressTransaction(req, guard);
        expectTypeOf(tx).toEqualTypeOf<Transaction<AppDb>>(); // was unknown without a type argument
        await tx.insertInto('credits').values({ invoice_id: 'in_types_http', amount_minor: 3 }).execute();
        res.status(201).json({ ok: true });
      },
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/payments`;
      const reply = await fetch(url, { method: 'POST', headers: { 'idempotency-key': 'k-types' }, body: '{}' });
      expect(reply.status).toBe(201);
      expect(await credits(store.db)).toEqual([{ invoice_id: 'in_types_http', amount_minor: 3 }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    }
  });
});

// Issue #41 follow-up, type-level: an endpoint on the application's stack typed `context.payonceTx` as `unknown`
// whatever the guard, and one written inline in `createWebhookIntake({ endpoints })` with `transaction:
// drizzleTransactions(db)` had untyped handler parameters (TS7006 under strict: the endpoint union could not be told
// apart by a `transaction` that is a call). Both compile only with the types of this change.
describe('stack endpoints: context.tx from the opener, context.payonceTx from the guard’s store', () => {
  const creditsTable = sqliteTable('credits', {
    invoiceId: text('invoice_id').notNull(),
    amountMinor: integer('amount_minor').notNull(),
  });
  const common = { profile: stripeProfile(), scheme: stripeScheme({ secrets: [STRIPE_SECRET] }) };

  it('types both inline and with webhookEndpoint(…, guard | store), and their writes commit with the receipt', async () => {
    const store = await openStore('stack-endpoints');
    const guard = new IdempotencyGuard(store);
    const outbox = new Outbox(store);
    const db = drizzle(new Database(join(dir, 'stack-endpoints.db')));
    type DrizzleDb = typeof db; // on better-sqlite3 the handler gets the db inside `begin immediate`
    const write = async (tx: DrizzleDb, payonceTx: Transaction<AppDb>, eventId: string | null, amountMinor: number) => {
      tx.insert(creditsTable)
        .values({ invoiceId: eventId ?? '', amountMinor })
        .run();
      await outbox.enqueueOnce(payonceTx, 'credit.granted', eventId ?? '', {});
    };
    const byGuard = webhookEndpoint(
      {
        ...common,
        transaction: drizzleTransactions(db),
        handler: async (event, { tx, payonceTx }) => {
          expectTypeOf(tx).toEqualTypeOf<DrizzleDb>();
          expectTypeOf(payonceTx).toEqualTypeOf<Transaction<AppDb>>(); // was unknown
          await write(tx, payonceTx, event.eventId, 1);
        },
      },
      guard,
    );
    const byStore = webhookEndpoint(
      {
        ...common,
        transaction: true,
        handler: (_event, { tx }) => {
          expectTypeOf(tx).toEqualTypeOf<Transaction<AppDb>>();
        },
      },
      store,
    );
    const intake = createWebhookIntake({
      guard,
      endpoints: {
        byGuard,
        byStore,
        inline: {
          ...common,
          transaction: drizzleTransactions(db),
          handler: async (event, context) => {
            expectTypeOf(context.tx).toEqualTypeOf<DrizzleDb>(); // was TS7006: parameter implicitly any
            expectTypeOf(context.payonceTx).toEqualTypeOf<Transaction<AppDb>>();
            await write(context.tx, context.payonceTx, event.eventId, 2);
          },
        },
        inlineOneCommit: {
          ...common,
          transaction: true,
          handler: (_event, { tx }) => expectTypeOf(tx).toEqualTypeOf<Transaction<AppDb>>(),
        },
        inlineDefault: {
          ...common,
          handler: (_event, context) => expectTypeOf(context).toEqualTypeOf<WebhookContext>(),
        },
      },
    });
    for (const [endpoint, eventId] of [
      ['byGuard', 'evt_types_by_guard'],
      ['inline', 'evt_types_inline'],
    ] as const) {
      const { rawBody, headers } = delivery(eventId, `in_${eventId}`);
      expect((await intake.receive({ endpoint, rawBody, headers })).status).toBe(200);
    }
    expect(db.select().from(creditsTable).all()).toEqual([
      { invoiceId: 'evt_types_by_guard', amountMinor: 1 },
      { invoiceId: 'evt_types_inline', amountMinor: 2 },
    ]);
    expect(await outbox.find('credit.granted', 'evt_types_inline')).not.toBeNull();
    db.$client.close();
    await store.close();
  });

  it('a guard typed as plain IdempotencyGuard leaves payonceTx unknown; a wrong transaction does not compile', async () => {
    const store = await openStore('stack-plain-guard');
    const guard: IdempotencyGuard = new IdempotencyGuard(store);
    const db = drizzle(new Database(join(dir, 'stack-plain-guard.db')));
    const endpoint = webhookEndpoint(
      {
        ...common,
        transaction: drizzleTransactions(db),
        handler: (_event, { tx, payonceTx }) => {
          expectTypeOf(tx).toEqualTypeOf<typeof db>();
          expectTypeOf(payonceTx).toBeUnknown();
        },
      },
      guard,
    );
    expect(() => createWebhookIntake({ guard, endpoints: { endpoint } })).not.toThrow();
    const notAnOpener = { ...common, transaction: db, handler() {} };
    // @ts-expect-error the Drizzle db itself is not a `transaction` (drizzleTransactions(db) is)
    const wrong = () => createWebhookIntake({ guard, endpoints: { stripe: notAnOpener } });
    expect(wrong).toThrow(InvalidOption);
    db.$client.close();
    await store.close();
  });
});
