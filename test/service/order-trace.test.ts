import { afterAll, describe, expect, it } from 'vitest';
import { orderTraceOf, recordOrderTrace } from '../../packages/service/src/order-trace.js';
import { SQL_DIALECTS, type SqlNamespace, sqlNamespaces } from '../stores/sql/sql-namespaces.js';

// The trace id the service stores with an order (payonce_service_order_traces, migration 0014-service-order-traces):
// one upsert per dialect (ON CONFLICT … DO UPDATE; MySQL ON DUPLICATE KEY UPDATE), in a transaction or on the pool.

const FIRST = '4bf92f3577b34da6a3ce929d0e0e4736';
const SECOND = '0af7651916cd43dd8448eb211c80319c';
const THIRD = 'b7ad6b7169203331b7ad6b7169203331';

for (const dialect of SQL_DIALECTS) {
  describe(`${dialect}: order trace ids`, () => {
    const namespaces: SqlNamespace[] = [];
    afterAll(async () => {
      await Promise.all(namespaces.map((ns) => ns.drop()));
    });

    it('stores, replaces and reads the trace id of an order; none for an order without one', async () => {
      const ns = await sqlNamespaces[dialect]();
      namespaces.push(ns);
      const store = await ns.open();
      await store.migrate({ only: ['service'] });
      expect(await orderTraceOf(store, store.db, 'ord_1')).toBeNull();
      await recordOrderTrace(store, store.db, 'ord_1', FIRST, 1_000);
      expect(await orderTraceOf(store, store.db, 'ord_1')).toBe(FIRST);
      await recordOrderTrace(store, store.db, 'ord_1', SECOND, 2_000);
      expect(await orderTraceOf(store, store.db, 'ord_1')).toBe(SECOND);
      await store.db.transaction().execute((tx) => recordOrderTrace(store, tx, 'ord_2', THIRD, 3_000));
      expect(await orderTraceOf(store, store.db, 'ord_2')).toBe(THIRD);
      expect(await orderTraceOf(store, store.db, 'ord_1')).toBe(SECOND);
      // A transaction rolled back leaves no trace row.
      await expect(
        store.db.transaction().execute(async (tx) => {
          await recordOrderTrace(store, tx, 'ord_3', FIRST, 4_000);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await orderTraceOf(store, store.db, 'ord_3')).toBeNull();
    });
  });
}
