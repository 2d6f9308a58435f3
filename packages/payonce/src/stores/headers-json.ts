import { isPlainJsonText } from '../core/plain-json-text.js';

/**
 * `JSON.stringify(headers)` of a stored response's headers, character for character. When every name and value is
 * plain (printable ASCII other than `"` and `\`, as real header names and most values are), the object is written
 * directly, which costs about half of the general serialiser on the per-delivery path of a store (packages/bench/notes/redis.md,
 * Session 13); anything else goes through `JSON.stringify`, which escapes. Keys come in `Object.keys` order, the order
 * `JSON.stringify` uses. A plain result is pure ASCII, so its UTF-8 byte length is its `length`.
 * @param headers the headers of a `StoredResponse` (string values, as `toStoredResponse` guarantees).
 * @see ECMA-262 `JSON.stringify` (SerializeJSONObject, QuoteJSONString); RFC 8259 §7.
 * @example headersJson({ 'content-type': 'application/json' }) // '{"content-type":"application/json"}'
 */
export function headersJson(headers: Readonly<Record<string, string>>): string {
  const names = Object.keys(headers);
  let json = '{';
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const value: unknown = headers[name];
    if (typeof value !== 'string' || !isPlainJsonText(name) || !isPlainJsonText(value)) return JSON.stringify(headers);
    json += index === 0 ? `"${name}":"${value}"` : `,"${name}":"${value}"`;
  }
  return `${json}}`;
}
