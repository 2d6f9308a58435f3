import type { RequestKey } from '../core/request-key.js';

/**
 * The injective text id of a request key, for a store that keys receipts by one string (a Redis hash name, a
 * waiter id): `<UTF-8 byte length of provider>:<provider>:<externalId>`. The length prefix keeps it injective
 * although either part may contain `:` — `('a:b', 'c')` → `3:a:b:c`, `('a', 'b:c')` → `1:a:b:c` — and bytes are
 * kept exactly (`evt_A` ≠ `evt_a`).
 * @see docs/design.md §3.
 * @example receiptIdOf(requestKey('stripe', 'evt_1')) // '6:stripe:evt_1'
 */
export function receiptIdOf(key: RequestKey): string {
  return `${Buffer.byteLength(key.provider, 'utf8')}:${key.provider}:${key.externalId}`;
}
