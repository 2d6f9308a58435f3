import { randomBytes } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/**
 * A new journal row id: a UUID version 7 (RFC 9562 §5.7) from the real wall clock, with a 12-bit counter in
 * `rand_a` (RFC 9562 §6.2 method 1) so ids made by one process sort in creation order even within a
 * millisecond. The journal orders rows by `receivedAtMs`, then by this id.
 * @see RFC 9562 §5.7, §6.2.
 */
export function deliveryId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    sequence = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
