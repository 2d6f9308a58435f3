import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { createPostgresNamespace, POSTGRES_TEST_URL } from '../../contract/backends/postgres.js';
import { PAYME_BACKENDS } from '../payme/payme-stores.js';
import { AMOUNT, newTransId, SERVICE_ID } from './uzum-fixtures.js';
import { uzumBench } from './uzum-harness.js';

describe.runIf((PAYME_BACKENDS as readonly string[]).includes('postgres'))(
  "postgres: the Uzum table follows the store's schema option",
  () => {
    let namespace: Awaited<ReturnType<typeof createPostgresNamespace>>;
    let store: PostgresStore<unknown>;
    beforeAll(async () => {
      namespace = await createPostgresNamespace();
      // Connected WITHOUT the namespace's search_path: only the `schema` option puts the tables there.
      store = await PostgresStore.connect<unknown>(POSTGRES_TEST_URL, { schema: namespace.schema });
      await store.migrate({ only: ['uzum'] });
    });
    afterAll(async () => {
      await store?.close();
      await namespace?.drop();
    });

    it('writes transactions into the named schema', async () => {
      const bench = uzumBench(store);
      const order = bench.addOrder();
      const transId = newTransId();
      const base = { serviceId: SERVICE_ID, timestamp: bench.clock.now(), transId };
      await bench.call('create', { ...base, params: order.params, amount: AMOUNT });
      expect((await bench.call('confirm', base)).body.status).toBe('CONFIRMED');
      const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
      await client.connect();
      try {
        const rows = await client.query(
          `select status, order_id from "${namespace.schema}".payonce_uzum_transactions where trans_id = $1`,
          [transId],
        );
        expect(rows.rows).toEqual([{ status: 'CONFIRMED', order_id: order.orderId }]);
      } finally {
        await client.end();
      }
    });
  },
);
