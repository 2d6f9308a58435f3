/** Longest accepted idempotency key, in characters (Stripe: "Idempotency keys are up to 255 characters long"). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** Name of the request header field, as registered by the IETF draft. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Result of `parseIdempotencyKey`: no header, a usable key, or a malformed value with the reason (no key text). */
export type ParsedIdempotencyKey =
  | { readonly kind: 'missing' }
  | { readonly kind: 'valid'; readonly key: string; readonly form: 'sf-string' | 'token' }
  | { readonly kind: 'invalid'; readonly reason: string };

const invalid = (reason: string): ParsedIdempotencyKey => ({ kind: 'invalid', reason });

/** RFC 8941 §3.1.2 key: lcalpha / "*", then lcalpha / DIGIT / "_" / "-" / "." / "*". */
const PARAM_KEY = /^[a-z*][a-z0-9_.*-]*/;
/** RFC 8941 bare items other than strings: integer/decimal, token, byte sequence, boolean. */
/** Printable ASCII except backslash and double quote: a quoted key made only of these needs no unescaping. */
const PLAIN_SF_CHARS = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const BARE_NON_STRING =
  /^(?:-?\d{1,15}(?:\.\d{1,3})?|[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*|:[A-Za-z0-9+/=]*:|\?[01])/;

/**
 * Reads an RFC 8941 sf-string starting at `input[start] === '"'` (§4.2.5): printable ASCII only; a
 * backslash may escape only `"` or `\`. Returns the decoded string and the index after the closing quote.
 */
function readSfString(input: string, start: number): { value: string; end: number } | string {
  // Common case: no escapes and only printable ASCII up to the closing quote, taken as one slice.
  const close = input.indexOf('"', start + 1);
  if (close !== -1 && PLAIN_SF_CHARS.test(input.slice(start + 1, close))) {
    return { value: input.slice(start + 1, close), end: close + 1 };
  }
  let value = '';
  for (let i = start + 1; i < input.length; i++) {
    const ch = input.charCodeAt(i);
    if (ch === 0x5c) {
      const next = input[i + 1];
      if (next !== '"' && next !== '\\') return 'a backslash in a quoted key may only escape " or \\';
      value += next;
      i++;
    } else if (ch === 0x22) {
      return { value, end: i + 1 };
    } else if (ch < 0x20 || ch > 0x7e) {
      return 'a quoted key may only contain printable ASCII characters';
    } else {
      value += input[i];
    }
  }
  return 'the quoted key has no closing quote';
}

/** Skips RFC 8941 parameters (`;key` or `;key=bare-item`) after the item; returns false on bad syntax. */
function parametersAreValid(input: string, start: number): boolean {
  let i = start;
  while (i < input.length) {
    if (input[i] !== ';') return false;
    i++;
    while (input[i] === ' ') i++;
    const key = PARAM_KEY.exec(input.slice(i));
    if (!key) return false;
    i += key[0].length;
    if (input[i] !== '=') continue;
    i++;
    if (input[i] === '"') {
      const str = readSfString(input, i);
      if (typeof str === 'string') return false;
      i = str.end;
    } else {
      const item = BARE_NON_STRING.exec(input.slice(i));
      if (!item) return false;
      i += item[0].length;
    }
  }
  return true;
}

function checkKey(key: string): ParsedIdempotencyKey | null {
  if (key.length === 0) return invalid('the key is empty');
  if (key.trim().length === 0) return invalid('the key is only whitespace');
  if (key.trim() !== key) return invalid('the key has leading or trailing whitespace');
  if (key.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    return invalid(`the key has ${key.length} characters, at most ${MAX_IDEMPOTENCY_KEY_CHARS}`);
  }
  return null;
}

/**
 * Parses the value of the `Idempotency-Key` request header. Two forms are accepted:
 * - the IETF draft's form: an RFC 8941 Structured Field Item whose bare item is an sf-string (`"…"`, printable
 *   ASCII, `\"` and `\\` the only escapes), optionally followed by parameters, which are ignored;
 * - Stripe's bare token form (`Idempotency-Key: 8e03978e-40d5-43e8-bc93-6894a57f9324`): printable ASCII
 *   (0x20–0x7E) that does not start with `"` and contains no `,` (a comma means the field was sent twice).
 * The decoded key must be non-empty, not whitespace-only, without leading or trailing whitespace, and at most
 * 255 characters; control and non-ASCII characters are rejected in both forms. Two header lines (an array, or a
 * value joined with `, ` by the HTTP stack) are malformed. Never throws; the reason never quotes the key.
 * @see draft-ietf-httpapi-idempotency-key-header-07 §2 (Item Structured Header, value a String), §2.1;
 *   RFC 8941 §3.3.3 and §4.2.5 (sf-string); Stripe API reference "Idempotent requests" (255 characters).
 * @example parseIdempotencyKey('"8e03978e"') // { kind: 'valid', key: '8e03978e', form: 'sf-string' }
 */
export function parseIdempotencyKey(value: string | readonly string[] | undefined): ParsedIdempotencyKey {
  if (value === undefined) return { kind: 'missing' };
  if (typeof value !== 'string') {
    if (value.length === 0) return { kind: 'missing' };
    if (value.length > 1) return invalid('the Idempotency-Key field was sent more than once');
    return parseIdempotencyKey(value[0]);
  }
  if (value.startsWith('"')) {
    const str = readSfString(value, 0);
    if (typeof str === 'string') return invalid(str);
    if (!parametersAreValid(value, str.end))
      return invalid('the quoted key is followed by something other than parameters');
    return checkKey(str.value) ?? { kind: 'valid', key: str.value, form: 'sf-string' };
  }
  for (let i = 0; i < value.length; i++) {
    const ch = value.charCodeAt(i);
    if (ch < 0x20 || ch === 0x7f) return invalid('the key contains a control character');
    if (ch > 0x7e) return invalid('the key contains a non-ASCII character');
    if (ch === 0x2c) return invalid('the key contains a comma (was the field sent more than once?)');
  }
  return checkKey(value) ?? { kind: 'valid', key: value, form: 'token' };
}
