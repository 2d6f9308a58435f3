import postgres from 'postgres';
import type { Outcome } from '../../../packages/payonce/src/core/outcome.js';
import { runInPostgresJsTransaction } from '../../../packages/payonce/src/tx/postgres-js.js';
import type { StackAdapterDefinition, StackOps } from '../stack-adapter.js';

/** postgres.js: the `tx` of `sql.begin(async (tx) => …)`. */
export const postgresJsStack: StackAdapterDefinition = {
  databases: ['postgres'],
  make(target) {
    const sql = postgres(target.url, {
      max: 12,
      connection: { search_path: target.schema ?? 'public' },
      onnotice: () => {},
    });
    return {
      async deliver(guard, key, handler, options) {
        const outcome = await sql.begin((own) =>
          runInPostgresJsTransaction(
            guard,
            own,
            key,
            async (tx, _claim, payonceTx) => {
              const ops: StackOps = {
                isOwn: tx === own,
                async writeEffect(eventId) {
                  await tx`insert into stack_effects (event_id) values (${eventId})`;
                },
                async joinedIds() {
                  // `.values()`: rows as arrays, so the two `id` columns stay apart.
                  const rows = await tx<{ id: string }[]>`
                    select o.id, c.id from stack_orders o join stack_customers c on c.id = o.customer_id
                    order by o.id`.values();
                  return rows.map((row) => ({ orderId: String(row[0]), customerId: String(row[1]) }));
                },
              };
              await handler(ops, payonceTx);
            },
            options,
          ),
        );
        return outcome as Outcome;
      },
      close: () => sql.end(),
    };
  },
};
