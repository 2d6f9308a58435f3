import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedPaymeKeys } from '../../../packages/payonce/src/providers/payme/index.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { createPostgresNamespace, POSTGRES_TEST_URL } from '../../contract/backends/postgres.js';
import { AMOUNT, KEY, newPaymeId, PAYME_TIME } from './payme-fixtures.js';
import { paymeBench } from './payme-harness.js';
import { PAYME_BACKENDS } from './payme-stores.js';

describe.runIf((PAYME_BACKENDS as readonly string[]).includes('postgres'))(
  "postgres: the Payme tables follow the store's schema option",
  () => {
    let namespace: Awaited<ReturnType<typeof createPostgresNamespace>>;
    let store: PostgresStore<unknown>;
    beforeAll(async () => {
      namespace = await createPostgresNamespace();
      // Connected WITHOUT the namespace's search_path: only the `schema` option puts the tables there.
      store = await PostgresStore.connect<unknown>(POSTGRES_TEST_URL, { schema: namespace.schema });
      await store.migrate({ only: ['payme'] });
    });
    afterAll(async () => {
      await store?.close();
      await namespace?.drop();
    });

    it('writes transactions and keys into the named schema', async () => {
      const bench = paymeBench(store, { keys: undefined, keyProvider: storedPaymeKeys(store, { initialKeys: KEY }) });
      const order = bench.addOrder();
      const id = newPaymeId();
      await bench.call('CreateTransaction', { id, time: PAYME_TIME, amount: AMOUNT, account: order.account });
      expect((await bench.call('PerformTransaction', { id })).result?.state).toBe(2);
      const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
      await client.connect();
      try {
        const rows = await client.query(
          `select state, order_id from "${namespace.schema}".payonce_payme_transactions where payme_id = $1`,
          [id],
        );
        expect(rows.rows).toEqual([{ state: 2, order_id: order.orderId }]);
        const keys = await client.query(`select merchant_key from "${namespace.schema}".payonce_payme_keys`);
        expect(keys.rows).toEqual([{ merchant_key: KEY }]);
      } finally {
        await client.end();
      }
    });
  },
);
