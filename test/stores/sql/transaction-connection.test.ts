import {
  CompiledQuery,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import {
  executeCompiled,
  withDirectStatements,
} from '../../../packages/payonce/src/stores/sql/transaction-connection.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from './sql-namespaces.js';

/** Counts the results a plugin sees (a plugin can transform them, so it must see every one). */
class CountingPlugin implements KyselyPlugin {
  results = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.results++;
    return args.result;
  }
}

const ONE = CompiledQuery.raw('select 1 as one', []);

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: fixed statements straight on a transaction's connection`, () => {
    let ns: SqlNamespace;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      ns = await sqlNamespaces[dialect]();
      store = (await ns.open()) as unknown as SqlStore<unknown>;
    });
    afterAll(async () => {
      await ns?.drop();
    });

    it('answers as Kysely does, on the transaction’s own connection, while the callback runs', async () => {
      await store.db.transaction().execute((trx) =>
        withDirectStatements(trx, async () => {
          const viaKysely = await trx.executeQuery(ONE);
          const direct = await executeCompiled(trx, ONE);
          const again = await executeCompiled(trx, ONE);
          expect(direct.rows).toEqual(viaKysely.rows);
          expect(again.rows).toEqual(viaKysely.rows);
        }),
      );
    });

    it('refuses a statement on the transaction once it committed (Kysely’s own check)', async () => {
      const trx = await store.db.transaction().execute((tx) =>
        withDirectStatements(tx, async () => {
          await executeCompiled(tx, ONE);
          return tx;
        }),
      );
      await expect(async () => executeCompiled(trx, ONE)).rejects.toThrow(/already committed/);
    });

    it('leaves a transaction with plugins to Kysely, so the plugins see every result', async () => {
      const plugin = new CountingPlugin();
      await store.db
        .withPlugin(plugin)
        .transaction()
        .execute((trx) =>
          withDirectStatements(trx, async () => {
            await executeCompiled(trx, ONE);
            await executeCompiled(trx, ONE);
          }),
        );
      expect(plugin.results).toBe(2);
    });
  });
}
