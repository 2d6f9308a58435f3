/** Printable ASCII except `"` and `\`: the characters `JSON.stringify` writes between quotes unchanged. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * True when `JSON.stringify(text)` is `text` between two quotes, with no escape: every character is printable ASCII
 * (0x20–0x7e) other than `"` and `\`. Such text is also its own UTF-8 encoding, one byte per character. Lets a
 * stored JSON format built on every request (an HTTP key's scope, a fingerprint's head, a receipt's headers) be
 * joined directly, falling back to `JSON.stringify` otherwise.
 * @see RFC 8259 §7 (which characters a JSON string must escape); ECMA-262 `JSON.stringify` (QuoteJSONString).
 * @example isPlainJsonText('application/json') // true; isPlainJsonText('say "hi"') // false
 */
export function isPlainJsonText(text: string): boolean {
  return PLAIN.test(text);
}
