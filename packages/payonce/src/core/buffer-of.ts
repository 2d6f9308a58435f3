/**
 * Typed arrays up to this many bytes may live on V8's own heap (V8's `typed_array_max_size_in_heap`, 64 by default),
 * with no `ArrayBuffer` behind them until one is asked for.
 */
const SMALL_BYTES = 64;

/**
 * `bytes` as a Node `Buffer` with the same bytes, for a driver or a socket to read: a view of the same memory
 * (no copy), except for a plain typed array of up to 64 bytes at offset 0, which is copied into Node's Buffer pool.
 * Reading `.buffer` of a small typed array that V8 keeps on its own heap makes V8 move it to a fresh off-heap
 * `ArrayBuffer` first, which costs about ten times the copy (≈ 1.2 µs against ≈ 0.13 µs on Node 20,
 * packages/bench/notes/redis.md); stored and replayed bodies are often that small (`{"received":true}` is 17
 * bytes).
 * Callers only read the result: writing into it may or may not change `bytes`.
 * @example bufferOf(receipt.response.body) // then reply.send(…), a driver parameter, a RESP argument
 */
export function bufferOf(bytes: Uint8Array): Buffer {
  // Off the V8 heap for sure: a Buffer (a view of Node's pool or of its own ArrayBuffer) or a view at an offset (a
  // typed array on V8's heap always starts at 0). Nothing to move, nothing to copy.
  if (bytes.byteLength > SMALL_BYTES || bytes.byteOffset !== 0 || Buffer.isBuffer(bytes)) {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return Buffer.from(bytes);
}
