import { isPlainJsonText } from '../core/plain-json-text.js';

/**
 * `JSON.stringify(parts)` character for character when every part is plain: printable ASCII (0x20–0x7e) other than
 * `"` and `\`, which JSON writes between quotes as it is. Otherwise `null`: the caller serialises with
 * `JSON.stringify`, which escapes. A non-null result is pure ASCII, so its UTF-8 byte length is its `length`.
 *
 * Why: the scope of an idempotency key and the head of a request fingerprint are JSON arrays of strings, encoded
 * on every covered request. Method, route, target and key are plain in practice, and joining them directly costs
 * about half as much as the general serialiser (packages/bench/notes/http-adapter.md). Both are stored formats, so
 * the text must be exactly what `JSON.stringify` gives (test/http/string-array-json.test.ts).
 * @see RFC 8259 §7 (which characters a JSON string must escape); ECMA-262 `JSON.stringify` (QuoteJSONString).
 * @example plainStringArrayJson(['POST', '/v1/payments']) // '["POST","/v1/payments"]'
 */
export function plainStringArrayJson(parts: readonly string[]): string | null {
  let json = '[';
  for (let index = 0; index < parts.length; index++) {
    const part: unknown = parts[index];
    // Not a string (a caller without a type checker): JSON.stringify decides, as it always did (`null`, numbers).
    if (typeof part !== 'string' || !isPlainJsonText(part)) return null;
    json += index === 0 ? `"${part}"` : `,"${part}"`;
  }
  return `${json}]`;
}

/** `JSON.stringify(parts)` for an array of strings, through `plainStringArrayJson` when every part is plain. */
export function stringArrayJson(parts: readonly string[]): string {
  return plainStringArrayJson(parts) ?? JSON.stringify(parts);
}
