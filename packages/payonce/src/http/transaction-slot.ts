import { InvalidOption } from '../core/errors.js';

/**
 * The stack's own transaction object of a request in a one-commit mode on the application's stack (`transaction:
 * pgTransactions(pool)`, `drizzleTransactions(db)`, …), boxed so that any value, even `undefined`, is told apart
 * from "no stack transaction".
 */
export interface StackTransactionBox {
  /** The stack's transaction object (a pg `PoolClient`, a Drizzle `tx`, …). */
  readonly tx: unknown;
}

/** What one request in flight runs in. */
interface OpenTransaction {
  readonly tx: unknown;
  readonly stack: StackTransactionBox | undefined;
}

/**
 * The open one-commit transaction of each request in flight, keyed by the framework's request object (a
 * `WeakMap`: nothing outlives the request). The adapters set it before the route handler runs and clear it when the
 * route's work has ended (its handler returned and its answer is in); the accessors (`fastifyTransaction`, `expressTransaction`, `honoTransaction`, and for the
 * stack's own object `fastifyStackTransaction`, `expressStackTransaction`, `honoStackTransaction`) read it.
 */
export class TransactionSlot<K extends object> {
  private readonly open = new WeakMap<K, OpenTransaction>();

  constructor(
    private readonly accessor: string,
    private readonly stackAccessor: string,
  ) {}

  /**
   * Remembers `tx` (payonce's Kysely transaction) and, in a one-commit mode on the application's stack, `stack`
   * (its own transaction object) for `request`; `tx` `undefined` (outside the one-commit modes): nothing is stored.
   */
  set(request: K, tx: unknown, stack?: StackTransactionBox): void {
    if (tx !== undefined) this.open.set(request, { tx, stack });
  }

  /** Forgets the transaction of `request` (its commit or rollback is under way). */
  clear(request: K): void {
    this.open.delete(request);
  }

  /**
   * The transaction `request` runs in, as payonce's Kysely `Transaction`. @throws {InvalidOption} the request does
   * not run under a one-commit claim (the middleware is in neither one-commit mode, the method is not covered, or
   * the route's work has ended).
   */
  get<Tx>(request: K): Tx {
    const open = this.open.get(request);
    if (open === undefined) {
      throw new InvalidOption(
        this.accessor,
        'this request runs in no one-commit transaction: mount the Idempotency-Key middleware with transaction: true ' +
          "(or your stack's transactions) on a covered method, and read the transaction while the route handler runs",
      );
    }
    return open.tx as Tx;
  }

  /**
   * The stack's own transaction object `request` runs in. @throws {InvalidOption} the request does not run in a
   * transaction of the application's stack (the middleware's `transaction` is not a stack's transactions such as
   * `pgTransactions(pool)`, the method is not covered, or the route's work has ended).
   */
  getStack<N>(request: K): N {
    const stack = this.open.get(request)?.stack;
    if (stack === undefined) {
      throw new InvalidOption(
        this.stackAccessor,
        "this request runs in no transaction of your stack: mount the Idempotency-Key middleware with transaction: your stack's " +
          'transactions (pgTransactions(pool), drizzleTransactions(db), …) on a covered method, and read it while the route handler runs',
      );
    }
    return stack.tx as N;
  }
}
