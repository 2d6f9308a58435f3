import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import type { ReceiptsDatabase } from '../../../packages/payonce/src/stores/sql/receipts-table.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

/** The application's database type: its own table next to payonce's receipts. */
interface LedgerDatabase extends ReceiptsDatabase {
  ledger: { entry: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');
const keyOf = (label: string) => new RequestKey('txn', `${label}-${randomUUID()}`);

async function ledgerCount(db: Kysely<LedgerDatabase>, entry: string): Promise<number> {
  const row = await db
    .selectFrom('ledger')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('entry', '=', entry)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

class Rollback extends Error {}

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: runInTransaction`, () => {
    let ns: SqlNamespace;
    let store: SqlStore<LedgerDatabase>;
    let guard: IdempotencyGuard<SqlStore<LedgerDatabase>>;

    beforeAll(async () => {
      ns = await sqlNamespaces[dialect]();
      store = await ns.open<LedgerDatabase>();
      await store.migrate();
      await sql`create table ledger (entry varchar(200) not null)`.execute(store.db);
      guard = new IdempotencyGuard(store);
    });
    afterAll(async () => {
      await ns?.drop();
    });

    it('leaves neither receipt nor business row when the business transaction rolls back', async () => {
      const key = keyOf('rollback');
      await expect(
        store.db.transaction().execute(async (trx) => {
          const outcome = await guard.runInTransaction(trx, key, async (tx) => {
            await tx.insertInto('ledger').values({ entry: key.externalId }).execute();
            return { status: 200, body: 'paid' };
          });
          expect(outcome.isReplay).toBe(false);
          expect(await guard.store.withTransaction(trx).find(key)).toMatchObject({ status: 'completed' });
          throw new Rollback('business rule failed after the handler');
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await guard.find(key)).toBeNull();
      expect(await ledgerCount(store.db, key.externalId)).toBe(0);

      const retried = await store.db.transaction().execute((trx) =>
        guard.runInTransaction(trx, key, async (tx) => {
          await tx.insertInto('ledger').values({ entry: key.externalId }).execute();
          return { body: 'paid' };
        }),
      );
      expect(retried.isReplay).toBe(false);
      expect(retried.attempts).toBe(1);
      expect(await ledgerCount(store.db, key.externalId)).toBe(1);
    });

    it('rethrows a handler error and rolls back the claim with the business write', async () => {
      const key = keyOf('throws');
      await expect(
        store.db.transaction().execute((trx) =>
          guard.runInTransaction(trx, key, async (tx) => {
            await tx.insertInto('ledger').values({ entry: key.externalId }).execute();
            throw new Error('provider said no');
          }),
        ),
      ).rejects.toThrow('provider said no');
      expect(await guard.find(key)).toBeNull();
      expect(await ledgerCount(store.db, key.externalId)).toBe(0);
    });

    it('commits receipt and business write together, then replays without running the handler', async () => {
      const key = keyOf('commit');
      let runs = 0;
      const deliver = () =>
        store.db.transaction().execute((trx) =>
          guard.runInTransaction(trx, key, async (tx) => {
            runs++;
            await tx.insertInto('ledger').values({ entry: key.externalId }).execute();
            return { status: 201, headers: { 'x-run': String(runs) }, body: 'paid' };
          }),
        );
      const first = await deliver();
      const second = await deliver();
      expect(runs).toBe(1);
      expect([first.isReplay, second.isReplay]).toEqual([false, true]);
      expect(second.response.status).toBe(201);
      expect(second.response.headers).toEqual({ 'x-run': '1' });
      expect(text(second.response.body)).toBe('paid');
      expect(await ledgerCount(store.db, key.externalId)).toBe(1);
      expect(await guard.alreadyHandled(key)).toBe(true);
    });

    if (dialect !== 'sqlite') {
      // better-sqlite3 is synchronous: a second connection waiting on the write lock blocks the event loop that
      // would commit the first, so concurrent transactions in one process are only meaningful on servers.
      it('lets exactly one of 5 concurrent transactions with one key write; the others replay it', async () => {
        const stores = [store, await ns.open<LedgerDatabase>()];
        const guards = stores.map((s) => new IdempotencyGuard(s));
        const key = keyOf('race');
        let runs = 0;
        const outcomes = await Promise.all(
          Array.from({ length: 5 }, (_, i) => {
            const g = guards[i % 2]!;
            return g.store.db.transaction().execute((trx) =>
              g.runInTransaction(trx, key, async (tx) => {
                runs++;
                await tx.insertInto('ledger').values({ entry: key.externalId }).execute();
                await sleep(150); // hold the uncommitted claim while the others queue on the primary key
                return { body: `written by ${i}` };
              }),
            );
          }),
        );
        expect(runs).toBe(1);
        expect(outcomes.filter((o) => !o.isReplay)).toHaveLength(1);
        const bodies = new Set(outcomes.map((o) => text(o.response.body)));
        expect(bodies.size).toBe(1);
        expect(await ledgerCount(store.db, key.externalId)).toBe(1);
      });

      it('replays a winner that committed after the loser transaction had already read (snapshot)', async () => {
        const key = keyOf('snapshot');
        const other = new IdempotencyGuard(await ns.open<LedgerDatabase>());
        const outcome = await store.db.transaction().execute(async (trx) => {
          // The loser's first read fixes its snapshot (REPEATABLE READ on InnoDB) before the winner commits.
          expect(await ledgerCount(trx, key.externalId)).toBe(0);
          await other.store.db.transaction().execute((winner) =>
            other.runInTransaction(winner, key, async (tx) => {
              await tx.insertInto('ledger').values({ entry: key.externalId }).execute();
              return { body: 'winner' };
            }),
          );
          return guard.runInTransaction(trx, key, async () => {
            throw new Error('must not run: the key was already handled');
          });
        });
        expect(outcome.isReplay).toBe(true);
        expect(text(outcome.response.body)).toBe('winner');
        expect(await ledgerCount(store.db, key.externalId)).toBe(1);
      });
    }
  });
}
