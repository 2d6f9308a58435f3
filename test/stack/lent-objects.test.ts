import 'reflect-metadata';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import Database from 'better-sqlite3';
import createKnex from 'knex';
import { Kysely, sql as kyselySql, SqliteDialect } from 'kysely';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionEnded } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import type { StackTransactions } from '../../packages/payonce/src/stores/sql/stack-transactions.js';
import { knexTransactions } from '../../packages/payonce/src/tx/knex.js';
import { kyselyTransactions } from '../../packages/payonce/src/tx/kysely.js';
import { prismaTransactions } from '../../packages/payonce/src/tx/prisma.js';
import { typeormTransactions } from '../../packages/payonce/src/tx/typeorm.js';
import { createWebhookIntake } from '../../packages/payonce/src/webhooks/intake.js';
import { stripeProfile } from '../../packages/payonce/src/webhooks/providers/stripe-profile.js';
import { stripeScheme } from '../../packages/payonce/src/webhooks/verify/stripe-scheme.js';
import { invoicePaidBody, STRIPE_SECRET, signedStripeHeaders } from '../webhooks/support/stripe-deliveries.js';
import { typeormOptions } from './adapters/typeorm.js';
import { PrismaClient as SqliteClient } from './prisma/generated/sqlite/client.js';
import { openStackFixture, type StackStore, type StackTarget } from './stack-target.js';

// A one-commit handler gets the ORM's own transaction object lent through a TransactionFence (a Proxy): the ORM's
// usual calls work through it while the handler runs, and the same calls throw TransactionEnded once it returned.

/** One opener of an ORM on the fixture's SQLite file, and its business write through the lent object. */
interface Orm {
  readonly name: string;
  readonly transactions: StackTransactions<unknown>;
  write(tx: unknown, eventId: string): Promise<unknown>;
  close(): Promise<void>;
}

async function ormsOn(target: StackTarget): Promise<Orm[]> {
  const prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${target.url}` }) });
  const knex = createKnex({ client: 'better-sqlite3', connection: { filename: target.url }, useNullAsDefault: true });
  const dataSource = await new DataSource(typeormOptions(target)).initialize();
  const kysely = new Kysely<{ stack_effects: { event_id: string } }>({
    dialect: new SqliteDialect({ database: new Database(target.url, { timeout: 20_000 }) }),
  });
  return [
    {
      name: 'prisma',
      transactions: prismaTransactions(prisma) as StackTransactions<unknown>,
      write: (tx, eventId) => (tx as typeof prisma).stackEffect.create({ data: { eventId } }),
      close: () => prisma.$disconnect(),
    },
    {
      name: 'knex',
      transactions: knexTransactions(knex) as StackTransactions<unknown>,
      write: async (trx, eventId) => (trx as typeof knex)('stack_effects').insert({ event_id: eventId }),
      close: () => knex.destroy(),
    },
    {
      name: 'typeorm',
      transactions: typeormTransactions(dataSource) as StackTransactions<unknown>,
      write: async (manager, eventId) => (manager as DataSource['manager']).insert('StackEffect', { eventId }),
      close: () => dataSource.destroy(),
    },
    {
      name: 'kysely',
      transactions: kyselyTransactions(kysely) as StackTransactions<unknown>,
      write: async (trx, eventId) =>
        (trx as typeof kysely).insertInto('stack_effects').values({ event_id: eventId }).execute(),
      close: () => kysely.destroy(),
    },
  ];
}

describe('sqlite: the ORMs through a lent (fenced) transaction object', () => {
  let fixture: { target: StackTarget; store: StackStore; drop(): Promise<void> };
  let orms: Orm[];
  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    orms = await ormsOn(fixture.target);
  }, 60_000);
  afterAll(async () => {
    for (const orm of orms ?? []) await orm.close();
    await fixture?.drop();
  });

  const rows = async (eventId: string) =>
    Number(
      (
        await kyselySql<{ n: number }>`select count(*) as n from stack_effects where event_id = ${eventId}`.execute(
          fixture.store.db,
        )
      ).rows[0]?.n,
    );

  it('each ORM writes through the lent object while the handler runs, and is refused with TransactionEnded after', async () => {
    for (const orm of orms) {
      let kept: unknown;
      const intake = createWebhookIntake({
        guard: new IdempotencyGuard(fixture.store),
        endpoints: {
          stripe: {
            profile: stripeProfile(),
            scheme: stripeScheme({ secrets: [STRIPE_SECRET] }),
            transaction: orm.transactions,
            handler: async (event, { tx }) => {
              kept = tx;
              await orm.write(tx, event.eventId ?? '');
              return { received: true };
            },
          },
        },
      });
      const eventId = `evt_lent_${orm.name}`;
      const body = invoicePaidBody(eventId, `in_lent_${orm.name}`);
      const answer = await intake.receive({
        endpoint: 'stripe',
        rawBody: Buffer.from(body),
        headers: signedStripeHeaders(body),
      });
      expect([orm.name, answer.status]).toEqual([orm.name, 200]);
      expect([orm.name, await rows(eventId)]).toEqual([orm.name, 1]);
      const late = `${eventId}_late`;
      await expect(
        Promise.resolve().then(() => orm.write(kept, late)),
        orm.name,
      ).rejects.toThrow(TransactionEnded);
      expect([orm.name, await rows(late)]).toEqual([orm.name, 0]);
    }
  }, 60_000);
});
