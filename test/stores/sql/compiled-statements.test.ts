import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import {
  Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  SqliteDialect,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { MysqlStore } from '../../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { defineStatement, StatementTemplate } from '../../../packages/payonce/src/stores/sql/compiled-statement.js';
import { RECEIPTS_TABLE, type ReceiptsDatabase } from '../../../packages/payonce/src/stores/sql/receipts-table.js';
import type { SqlDialectName } from '../../../packages/payonce/src/stores/sql/sql-dialect.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { sqliteDialect } from '../../../packages/payonce/src/stores/sql/sqlite-dialect.js';
import { SqliteStore } from '../../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

const T0 = 1_767_225_600_123;
const response = { status: 201, headers: { 'x-a': '1' }, body: new Uint8Array([1, 2, 3]) };
const keyOf = (label: string) => new RequestKey('compiled', `${label}-${randomUUID()}`);

/** Counts how often Kysely compiles a query (plugins transform every query as it is compiled) and sees a result. */
class CountingPlugin implements KyselyPlugin {
  compiled = 0;
  results = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    this.compiled++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.results++;
    return args.result;
  }
}

const storeOn: Record<SqlDialectName, (db: Kysely<ReceiptsDatabase>) => SqlStore<ReceiptsDatabase>> = {
  sqlite: (db) => new SqliteStore({ db }),
  postgres: (db) => new PostgresStore({ db }),
  mysql: (db) => new MysqlStore({ db }),
};

describe('StatementTemplate', () => {
  const db = new Kysely<ReceiptsDatabase>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  afterAll(() => db.destroy());

  it('compiles the builder SQL once and binds slots (repeated or not) in place, keeping constants', () => {
    const definition = defineStatement(['a', 'b'], (kdb, p) =>
      kdb
        .updateTable(RECEIPTS_TABLE)
        .set({ status: 'completed', claimed_at: p.a, finished_at: p.a, error: null })
        .where('provider', '=', p.b)
        .where('attempts', '=', 7),
    );
    const expected = db
      .updateTable(RECEIPTS_TABLE)
      .set({ status: 'completed', claimed_at: 5, finished_at: 5, error: null })
      .where('provider', '=', 'p')
      .where('attempts', '=', 7)
      .compile();
    const bound = StatementTemplate.compile(db, sqliteDialect, definition).bind({ a: 5, b: 'p' });
    expect(bound.sql).toBe(expected.sql);
    expect(bound.parameters).toEqual(expected.parameters);
  });

  it('refuses a definition whose slot never reaches the compiled parameters', () => {
    const definition = defineStatement(['a', 'unused'], (kdb, p) =>
      kdb.selectFrom(RECEIPTS_TABLE).selectAll().where('provider', '=', p.a),
    );
    expect(() => StatementTemplate.compile(db, sqliteDialect, definition)).toThrow(/unused/);
  });
});

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: fixed statements are compiled once per store`, () => {
    let ns: SqlNamespace;
    let plugin: CountingPlugin;
    let store: SqlStore<ReceiptsDatabase>;
    let owner: SqlStore<ReceiptsDatabase>;
    beforeAll(async () => {
      ns = await sqlNamespaces[dialect]();
      owner = await ns.open();
      await owner.migrate();
      plugin = new CountingPlugin();
      store = storeOn[dialect](owner.db.withPlugin(plugin));
    });
    afterAll(async () => {
      await ns?.drop();
    });

    it('claims and completes 20 keys with two compilations, and every result still reaches the plugins', async () => {
      for (let i = 0; i < 20; i++) {
        const key = keyOf('hot');
        expect((await store.insertClaim({ key, nowMs: T0, fingerprint: 'f' })).inserted).toBe(true);
        expect(await store.complete({ key, attempt: 1, nowMs: T0 + 1, response })).toBe(true);
        expect(await store.complete({ key, attempt: 1, nowMs: T0 + 2, response })).toBe(false);
      }
      expect(plugin.compiled).toBe(2);
      expect(plugin.results).toBe(60);
    });

    it('executeFixed answers as Kysely does: affected rows of a write, rows of a read', async () => {
      const key = new RequestKey(`fixed-${randomUUID().slice(0, 8)}`, 'evt-1');
      const count = defineStatement(['provider'], (kdb, p) =>
        kdb.updateTable(RECEIPTS_TABLE).set({ status: 'completed' }).where('provider', '=', p.provider),
      );
      const read = defineStatement(['provider'], (kdb, p) =>
        kdb.selectFrom(RECEIPTS_TABLE).select(['status', 'attempts']).where('provider', '=', p.provider),
      );
      const direct = storeOn[dialect](owner.db);
      const provider = direct.dialect.binaryKeys ? Buffer.from(key.provider) : key.provider;
      expect((await store.insertClaim({ key, nowMs: T0, fingerprint: null })).inserted).toBe(true);
      expect((await owner.executeFixed(count, { provider })).numAffectedRows).toBe(1n);
      expect((await owner.executeFixed(read, { provider })).rows).toEqual([{ status: 'completed', attempts: 1 }]);
      expect((await direct.executeFixed(read, { provider })).rows).toEqual([{ status: 'completed', attempts: 1 }]);
    });

    it('reuses the store’s compiled statements inside a caller’s transaction, with affected rows counted', async () => {
      const before = plugin.compiled;
      const key = keyOf('tx');
      await store.db.transaction().execute(async (tx) => {
        const view = store.withTransaction(tx);
        expect((await view.insertClaim({ key, nowMs: T0, fingerprint: null })).inserted).toBe(true);
        expect(await view.complete({ key, attempt: 1, nowMs: T0 + 1, response })).toBe(true);
        const again = await view.insertClaim({ key, nowMs: T0 + 2, fingerprint: null });
        expect(again).toMatchObject({ inserted: false, receipt: { status: 'completed', attempts: 1 } });
      });
      // plus at most the locking and plain reads of the existing receipt
      expect(plugin.compiled - before).toBeLessThanOrEqual(1);
      expect((await store.find(key))?.response?.body).toEqual(response.body);
    });
  });
}
