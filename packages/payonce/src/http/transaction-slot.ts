import { InvalidOption } from '../core/errors.js';

/**
 * The open one-commit transaction of each request in flight, keyed by the framework's request object (a
 * `WeakMap`: nothing outlives the request). The adapters set it before the route handler runs and clear it when the
 * handler's response is in; the accessors (`fastifyTransaction`, `expressTransaction`, `honoTransaction`) read it.
 */
export class TransactionSlot<K extends object> {
  private readonly open = new WeakMap<K, unknown>();

  constructor(private readonly accessor: string) {}

  /** Remembers `tx` for `request` (`undefined` outside the one-commit mode: nothing is stored). */
  set(request: K, tx: unknown): void {
    if (tx !== undefined) this.open.set(request, tx);
  }

  /** Forgets the transaction of `request` (its commit or rollback is under way). */
  clear(request: K): void {
    this.open.delete(request);
  }

  /**
   * The transaction `request` runs in. @throws {InvalidOption} the request does not run under a one-commit claim
   * (the middleware is not in `transaction: true` mode, the method is not covered, or the handler already answered).
   */
  get<Tx>(request: K): Tx {
    if (!this.open.has(request)) {
      throw new InvalidOption(
        this.accessor,
        'this request runs in no one-commit transaction: mount the Idempotency-Key middleware with transaction: true ' +
          'on a covered method, and read the transaction before the response is sent',
      );
    }
    return this.open.get(request) as Tx;
  }
}
