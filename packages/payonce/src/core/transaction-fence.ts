import { TransactionEnded } from './errors.js';

/** Properties a closed fence still answers: promise resolution (`then`), `JSON.stringify` and class checks. */
const ALWAYS_READABLE: ReadonlySet<PropertyKey> = new Set(['then', 'toJSON', 'constructor']);

/** True for an own property a proxy must answer as it is (non-configurable and read-only: the Proxy invariant). */
function isFixed(object: object, property: PropertyKey): boolean {
  const own = Reflect.getOwnPropertyDescriptor(object, property);
  return own !== undefined && own.configurable === false && own.writable === false;
}

/**
 * Lends one-commit transaction objects to a handler for as long as its work runs, and refuses them afterwards. A
 * handler gets {@link TransactionFence.lend}'s view of each object (a pg `PoolClient`, a Drizzle or Prisma `tx`,
 * payonce's Kysely `Transaction`); once the fence is closed (the handler returned or threw, and the transaction is
 * committing or rolling back), reading a property of the view or calling it throws `TransactionEnded`, so a write
 * the handler left running never reaches a connection that is back in the pool (autocommitted, or inside another
 * request's transaction). While open the view behaves as the object: methods run with the object itself as `this`
 * (private fields work), and a method read from the view checks the fence again each time it is called. Only the
 * view is fenced: a query builder the handler made while the fence was open is the stack's own object.
 * @example const fence = new TransactionFence(); try { await handler(fence.lend(tx)); } finally { fence.close(); }
 */
export class TransactionFence {
  private open = true;

  /** Ends the loan: every view made by this fence refuses from now on. */
  close(): void {
    this.open = false;
  }

  /** @throws {TransactionEnded} the fence is closed. */
  check(): void {
    if (!this.open) throw new TransactionEnded();
  }

  /**
   * The fenced view of `target` (an object or a function, such as Knex's `trx`); anything else (`undefined`, a
   * primitive) is returned as it is.
   */
  lend<T>(target: T): T {
    if ((typeof target !== 'object' && typeof target !== 'function') || target === null) return target;
    // The checking wrapper of each method read through this view (one per method, so `tx.query === tx.query`).
    const methods = new WeakMap<object, unknown>();
    return new Proxy(target as object, {
      get: (object, property) => {
        if (typeof property === 'string' && !ALWAYS_READABLE.has(property)) this.check();
        const value: unknown = Reflect.get(object, property, object);
        if (typeof value !== 'function' || property === 'constructor' || isFixed(object, property)) return value;
        let checked = methods.get(value);
        if (checked === undefined) {
          checked = this.method(object, value);
          methods.set(value, checked);
        }
        return checked;
      },
      apply: (fn, thisArg, args) => {
        this.check();
        return Reflect.apply(fn as (...args: unknown[]) => unknown, thisArg, args);
      },
    }) as T;
  }

  /** `fn` of `object` as a function that checks the fence on every call and runs with `object` as `this`. */
  private method(object: object, fn: object): unknown {
    const fence = this;
    return function fenced(...args: unknown[]): unknown {
      fence.check();
      return Reflect.apply(fn as (...args: unknown[]) => unknown, object, args);
    };
  }
}
