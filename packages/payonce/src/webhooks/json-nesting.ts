const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when the JSON text in `bytes` nests arrays and objects deeper than `maxDepth` levels (`[[1]]` is 2).
 * One pass over the bytes with no recursion and no allocation, stopping at the first level too deep; string
 * contents (with their escapes) are skipped, so brackets inside strings do not count. Works on UTF-8 bytes
 * without decoding them (every structural character is ASCII, and no byte of a multi-byte UTF-8 sequence is).
 * It checks nesting only, not validity: call it before `JSON.parse`, whose cost on a 2 MiB body nested a
 * million levels deep is about half a second of blocked event loop (and whose result no recursive walk can
 * take).
 * @see RFC 8259 §9 ("An implementation may set limits on the maximum depth of nesting").
 */
export function jsonNestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > maxDepth) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** True when the first byte that is not JSON whitespace opens an object or an array (the body looks like JSON). */
export function startsLikeJsonContainer(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === OPEN_OBJECT || byte === OPEN_ARRAY;
  }
  return false;
}
