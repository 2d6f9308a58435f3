import type { StackSide } from '../stack-side.js';
import { LEDGER_AMOUNT } from '../stack-side.js';

/**
 * Side B of every `stack-*-vs-own` target: the same work in payonce's own Kysely transaction,
 * `guard.runInNewTransaction` on the store's pool (`POOL_SIZE` connections), the business row through Kysely.
 */
export const ownSide: StackSide = {
  label: "payonce's own Kysely transaction, guard.runInNewTransaction",
  backend: 'postgres',
  async open(_ns, work) {
    return {
      deliver: (id) =>
        work.guard.runInNewTransaction(
          work.key(id),
          async (tx) => {
            await tx.insertInto('bench_ledger').values({ event_id: id, amount: LEDGER_AMOUNT }).execute();
            return await work.finish(tx, id);
          },
          work.options(id),
        ),
      close: async () => {},
    };
  },
};
