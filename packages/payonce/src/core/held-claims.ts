import { AsyncLocalStorage } from 'node:async_hooks';
import { NestedClaim } from './errors.js';
import type { RequestKey } from './request-key.js';
import type { Store } from './store.js';

/**
 * One claim held by the handler call chain that is running (one entry per enclosing `run`/`runInTransaction`),
 * to tell "this very chain already holds the key" (a misuse, {@link NestedClaim}) from "another worker holds it".
 * `active` turns false when the handler returns, so work it left running (a timer) is not mistaken for a nesting.
 */
export interface HeldClaim {
  readonly store: Store;
  readonly slot: string;
  readonly parent: HeldClaim | undefined;
  active: boolean;
}

const heldClaims = new AsyncLocalStorage<HeldClaim>();
const slotOf = (key: RequestKey): string => `${key.provider}\u0000${key.externalId}`;

/**
 * Throws when the running handler chain already holds `key` on `store` (an active enclosing claim).
 * @throws {NestedClaim} `key` is held by this chain; nothing is claimed.
 */
export function assertNotHeld(store: Store, key: RequestKey): void {
  let held = heldClaims.getStore();
  if (held === undefined) return;
  const slot = slotOf(key);
  for (; held !== undefined; held = held.parent) {
    if (held.active && held.store === store && held.slot === slot) throw new NestedClaim(key);
  }
}

/** The entry a claim of `key` on `store` adds to the running chain's held claims (active until released). */
export function holdClaim(store: Store, key: RequestKey): HeldClaim {
  return { store, slot: slotOf(key), parent: heldClaims.getStore(), active: true };
}

/** Runs `fn` with `held` added to the chain's held claims (every async continuation of `fn` sees it). */
export function runHolding<T>(held: HeldClaim, fn: () => T): T {
  return heldClaims.run(held, fn);
}
