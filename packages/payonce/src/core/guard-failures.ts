import { cutToCodePoints } from './code-points.js';
import { PayonceError, StoreSchemaMissing, StoreUnavailable } from './errors.js';
import type { GuardEmitter } from './guard-events.js';
import type { Store } from './store.js';

/**
 * Printable, storable text of anything a handler (or a store) threw, at most `maxChars` code points: never
 * throws, well-formed Unicode, no NUL (PostgreSQL text refuses it).
 */
export function errorText(error: unknown, maxChars: number): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    text = '[a thrown value that cannot be converted to text]';
  }
  const clean = text.toWellFormed().replaceAll('\u0000', '\uFFFD');
  return cutToCodePoints(clean, maxChars);
}

/**
 * What a store's failure in `operation` is rethrown as: a `PayonceError` as is; a configuration failure `store`
 * recognises (`Store.schemaError`: payonce's tables are missing) as that `StoreSchemaMissing`; anything else as
 * `StoreUnavailable` (the driver error is the `cause`).
 */
export function storeError(operation: string, error: unknown, store?: Store): unknown {
  if (error instanceof PayonceError) return error;
  return store?.schemaError?.(error) ?? new StoreUnavailable(operation, error);
}

/**
 * The guard's store failures: each turned into the error the guard throws (`storeError`), and a store whose tables
 * are missing reported once per guard, as the event `store:schema-missing` (which `logGuard` logs at `error`), or,
 * when nothing listens to it, as one line on stderr: a misconfiguration every request meets must not go unseen.
 */
export class StoreFailures {
  private reported = false;

  constructor(private readonly events: GuardEmitter) {}

  /** What the failure of `store` in `operation` is rethrown as (see `storeError`); reports a missing schema once. */
  of(operation: string, error: unknown, store: Store): unknown {
    const failure = storeError(operation, error, store);
    if (failure instanceof StoreSchemaMissing && !this.reported) {
      this.reported = true;
      const { missing, schema, message } = failure;
      if (this.events.has('store:schema-missing'))
        this.events.emit('store:schema-missing', { missing, schema, message });
      else console.error(`payonce: ${failure.code}: ${message}`);
    }
    return failure;
  }

  /** Runs the call `fn` of `store`. @throws what `of` makes of its failure. */
  async call<T>(operation: string, store: Store, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.of(operation, error, store);
    }
  }
}
