import { randomUUID } from 'node:crypto';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import type { Store } from '../../packages/payonce/src/core/store.js';

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
    purgeBatch: count((b, l, p, a) => inner.purgeBatch(b, l, p, a)),
    ...(inner.renewClaim ? { renewClaim: count((r) => inner.renewClaim!(r)) } : {}),
  };
  return {
    store,
    get calls() {
      return calls;
    },
  };
}

/**
 * Wraps a store and lets a test await and hold its heartbeats: `nextRenewal()` resolves with the result of the next
 * `renewClaim` made through it (after the store answered); `pauseRenewals()` holds every renewal made from then on
 * (a paused owner) until `resumeRenewals()`; `completes` counts `complete` calls.
 */
export function observedStore(inner: Store): {
  store: Store;
  nextRenewal(): Promise<boolean>;
  pauseRenewals(): void;
  resumeRenewals(): void;
  readonly completes: number;
} {
  let waiting: ((renewed: boolean) => void)[] = [];
  let completes = 0;
  let gate: ReturnType<typeof deferred<void>> | null = null;
  const store: Store = {
    name: inner.name,
    supportsTransactions: false,
    insertClaim: (r) => inner.insertClaim(r),
    takeover: (r) => inner.takeover(r),
    complete: (r) => {
      completes++;
      return inner.complete(r);
    },
    fail: (r) => inner.fail(r),
    find: (k) => inner.find(k),
    purgeBatch: (b, l, p, a) => inner.purgeBatch(b, l, p, a),
    renewClaim: async (r) => {
      if (gate !== null) await gate.promise;
      const renewed = (await inner.renewClaim?.(r)) ?? false;
      const resolvers = waiting;
      waiting = [];
      for (const resolve of resolvers) resolve(renewed);
      return renewed;
    },
  };
  return {
    store,
    nextRenewal: () => new Promise<boolean>((resolve) => waiting.push(resolve)),
    pauseRenewals: () => {
      gate ??= deferred<void>();
    },
    resumeRenewals: () => {
      gate?.resolve();
      gate = null;
    },
    get completes() {
      return completes;
    },
  };
}
