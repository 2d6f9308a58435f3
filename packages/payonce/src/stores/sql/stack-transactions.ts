import type { SqlExecutor } from './joined-transaction.js';
import type { SqlDialectName } from './sql-dialect.js';

/**
 * How payonce opens a transaction of the application's OWN stack (a node-postgres pool, a Drizzle database, a Prisma
 * client, …) when payonce, not the application, decides when a transaction starts: a one-commit webhook endpoint,
 * an Idempotency-Key route in one-commit mode. Each adapter of `payonce/tx/*` makes one from the object the
 * application already holds (`pgTransactions(pool)`, `drizzleTransactions(db)`, …).
 * @typeParam N the stack's own transaction object, as the application's handler receives it (a pg `PoolClient`, a
 * Drizzle `tx`, a Prisma interactive-transaction client).
 * @see docs/your-stack.md "Transactions of your stack".
 */
export interface StackTransactions<N> {
  /** The SQL dialect of the stack's database: payonce's statements are written in it. */
  readonly dialect: SqlDialectName;
  /** What the stack is, for messages: `node-postgres`, `drizzle (node-postgres)`, `prisma`, … */
  readonly stack: string;
  /**
   * Opens ONE transaction of the stack, runs `work` with the stack's own transaction object and an executor whose
   * statements run in that transaction, commits when `work` resolves, and rolls back and rethrows when it throws.
   * May be called again for a retry (a deadlock or serialization failure rolls the whole transaction back).
   * @throws whatever `work` throws, and the stack's own errors of BEGIN / COMMIT.
   */
  transaction<T>(work: (tx: N, executor: SqlExecutor) => Promise<T>): Promise<T>;
}
