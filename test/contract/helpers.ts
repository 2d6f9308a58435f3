import { randomUUID } from 'node:crypto';
import { RequestKey } from '../../src/core/request-key.js';
import type { Store } from '../../src/core/store.js';

/** A key no other test or run uses. */
export function uniqueKey(label: string): RequestKey {
  return new RequestKey('contract', `${label}-${randomUUID()}`);
}

/** A promise with its resolve function exposed, to hold a handler mid-flight. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Wraps a store and counts every call made through it. */
export function countingStore(inner: Store): { store: Store; readonly calls: number } {
  let calls = 0;
  const count =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      calls++;
      return fn(...args);
    };
  const store: Store = {
    name: inner.name,
    supportsTransactions: inner.supportsTransactions,
    insertClaim: count((r) => inner.insertClaim(r)),
    takeover: count((r) => inner.takeover(r)),
    complete: count((r) => inner.complete(r)),
    fail: count((r) => inner.fail(r)),
    find: count((k) => inner.find(k)),
    purgeBatch: count((b, l, p) => inner.purgeBatch(b, l, p)),
  };
  return {
    store,
    get calls() {
      return calls;
    },
  };
}
