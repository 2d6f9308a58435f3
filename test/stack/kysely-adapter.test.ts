import Database from 'better-sqlite3';
import {
  IdentifierNode,
  Kysely,
  type KyselyPlugin,
  MysqlDialect,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresDialect,
  type QueryResult,
  type RootOperationNode,
  SqliteDialect,
  sql,
  type UnknownRow,
} from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import { Outbox } from '../../packages/payonce/src/outbox/outbox.js';
import { joinTransaction } from '../../packages/payonce/src/stores/sql/joined-transaction.js';
import type { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import {
  type KyselyTransactionLike,
  kyselyDialectOf,
  kyselyExecutor,
  kyselyTransactions,
  runInKyselyTransaction,
} from '../../packages/payonce/src/tx/kysely.js';
import { createPostgresNamespace, POSTGRES_TEST_URL, type PostgresNamespace } from '../contract/backends/postgres.js';
import { openStackFixture } from './stack-target.js';

// payonce/tx/kysely beyond the conformance suite: the dialect read from the application's own Kysely, the
// opener kyselyTransactions, and the wrong objects it refuses with InvalidOption.

interface AppDatabase {
  stack_effects: { event_id: string };
}

/** An application's plugin that prefixes every identifier it compiles with `app_` (a table-prefix convention). */
class PrefixIdentifiers implements KyselyPlugin {
  readonly #transformer = new (class extends OperationNodeTransformer {
    protected override transformIdentifier(node: IdentifierNode): IdentifierNode {
      return IdentifierNode.create(`app_${node.name}`);
    }
  })();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

describe('payonce/tx/kysely', () => {
  let fixture: Awaited<ReturnType<typeof openStackFixture>>;
  let db: Kysely<AppDatabase>;
  let ns: PostgresNamespace;
  let pool: pg.Pool;

  beforeAll(async () => {
    fixture = await openStackFixture('sqlite');
    db = new Kysely<AppDatabase>({ dialect: new SqliteDialect({ database: new Database(fixture.target.url) }) });
    ns = await createPostgresNamespace();
    pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL, options: `-c search_path=${ns.schema}` });
  });

  afterAll(async () => {
    await db?.destroy();
    await fixture?.drop();
    await pool?.end();
    await ns?.drop();
  });

  it("reads the dialect from the application's Kysely (its own dialect objects), sending nothing", () => {
    const mysqlPool = createPool({ uri: 'mysql://nobody@127.0.0.1:1/none' });
    try {
      expect(kyselyDialectOf(new Kysely({ dialect: new PostgresDialect({ pool }) }))).toBe('postgres');
      expect(kyselyDialectOf(new Kysely({ dialect: new MysqlDialect({ pool: mysqlPool }) }))).toBe('mysql');
      expect(kyselyDialectOf(db)).toBe('sqlite');
    } finally {
      mysqlPool.end();
    }
  });

  it("reads the dialect past the application's plugins (one that renames every identifier)", async () => {
    const prefixed = new Kysely<AppDatabase>({
      dialect: new PostgresDialect({ pool }),
      plugins: [new PrefixIdentifiers()],
    });
    expect(sql`${sql.ref('t')}`.compile(prefixed).sql).toBe('"app_t"');
    expect(kyselyDialectOf(prefixed)).toBe('postgres');
    await prefixed.transaction().execute(async (trx) => {
      expect(kyselyExecutor(trx).dialect).toBe('postgres');
    });
  });

  it("refuses a statement once the application's transaction has committed, writing nothing", async () => {
    let executor: ReturnType<typeof kyselyExecutor> | undefined;
    await db.transaction().execute(async (trx) => {
      executor = kyselyExecutor(trx);
      await executor.execute('insert into stack_effects (event_id) values (?)', ['ended-1']);
    });
    await expect(executor!.execute('insert into stack_effects (event_id) values (?)', ['ended-2'])).rejects.toThrow(
      /committed/,
    );
    const effects = await db
      .selectFrom('stack_effects')
      .select('event_id')
      .where('event_id', 'like', 'ended-%')
      .execute();
    expect(effects).toEqual([{ event_id: 'ended-1' }]);
  });

  it('kyselyTransactions opens the transaction: the work commits, or rolls back when it throws', async () => {
    const store = fixture.store as SqliteStore;
    const outbox = new Outbox(store);
    const transactions = kyselyTransactions(db);
    expect(transactions).toMatchObject({ dialect: 'sqlite', stack: 'kysely' });
    const work = (eventId: string, fail: boolean) =>
      transactions.transaction(async (trx, executor) => {
        await trx.insertInto('stack_effects').values({ event_id: eventId }).execute();
        await joinTransaction(executor, (payonceTx) =>
          outbox.enqueueOnce(payonceTx as never, 'order.fulfil', eventId, {}),
        );
        if (fail) throw new Error('declined');
      });
    await work('opened-1', false);
    await expect(work('opened-2', true)).rejects.toThrow('declined');
    const effects = await db
      .selectFrom('stack_effects')
      .select('event_id')
      .where('event_id', 'like', 'opened-%')
      .execute();
    expect(effects).toEqual([{ event_id: 'opened-1' }]);
    expect(await outbox.find('order.fulfil', 'opened-1')).not.toBeNull();
    expect(await outbox.find('order.fulfil', 'opened-2')).toBeNull();
  });

  it('refuses the Kysely database instead of its transaction, and a plain object', async () => {
    const guard = new IdempotencyGuard(fixture.store);
    const key = new RequestKey('stack', 'wrong-1');
    await expect(runInKyselyTransaction(guard, db as never, key, async () => {})).rejects.toThrow(InvalidOption);
    await expect(runInKyselyTransaction(guard, db as never, key, async () => {})).rejects.toThrow(
      /not the Kysely database/,
    );
    expect(() => kyselyExecutor({ execute: async () => ({ rows: [] }) } as unknown as KyselyTransactionLike)).toThrow(
      InvalidOption,
    );
    await db.transaction().execute(async (trx) => {
      expect(() => kyselyTransactions(trx as never)).toThrow(/not a transaction/);
    });
  });

  it("refuses a guard whose store is not of the transaction's database", async () => {
    const sqliteGuard = new IdempotencyGuard(fixture.store);
    const postgres = new Kysely<AppDatabase>({ dialect: new PostgresDialect({ pool }) });
    await expect(
      postgres
        .transaction()
        .execute((trx) => runInKyselyTransaction(sqliteGuard, trx, new RequestKey('stack', 'wrong-2'), async () => {})),
    ).rejects.toThrow(/must be a postgres SQL store/);
  });

  it('takes the dialect as an option, and refuses an unknown one', async () => {
    await db.transaction().execute(async (trx) => {
      expect(kyselyExecutor(trx, { dialect: 'sqlite' }).dialect).toBe('sqlite');
      expect(() => kyselyExecutor(trx, { dialect: 'oracle' as never })).toThrow(InvalidOption);
    });
  });
});
