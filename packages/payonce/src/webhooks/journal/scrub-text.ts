import { scrubCards } from './scrub-cards.js';

export { looksLikeCardNumber } from './scrub-cards.js';

/** What replaces a redacted value, in the journal and in logs. */
export const REDACTED = '[REDACTED]';

/** One character of an e-mail local part: letters and digits of any script (IDN), marks, `._%+-`. */
const LOCAL_PART = /[\p{L}\p{N}\p{M}._%+-]/u;
/** One character of an e-mail domain: letters and digits of any script (IDN), marks, `.`, `-`. */
const DOMAIN = /[\p{L}\p{N}\p{M}.-]/u;
/** A top-level domain: two or more letters of any script, or an A-label (`xn--…`). */
const TLD = /\.(?:[\p{L}\p{M}]{2,}|xn--[a-z0-9-]+)$/iu;

/** An E.164 phone number: `+`, then 8–15 digits, single spaces, dots or hyphens allowed between them. */
const PHONE = /(?<![\p{N}+])\+[0-9](?:[ .-]?[0-9]){7,14}(?![0-9])/gu;
/** A credential after `Bearer` (RFC 6750 §2.1 token68), any case. */
const BEARER_VALUE = /\b(Bearer)(\s+)[A-Za-z0-9._~+/=-]+/giu;
/**
 * A credential after `Basic` (RFC 7617): base64 of 8 or more characters with a digit, `+`, `/` or `=`, or with a
 * capital letter after a small one (`dXNlcjpwYXNz`) — not an English word (`Basic plan`, `Basic Authentication`). The scheme
 * word in any case; the value's case matters, so the flags have no `i`.
 */
const BASIC_VALUE = /\b([Bb][Aa][Ss][Ii][Cc])(\s+)(?=[A-Za-z0-9+/]*(?:[0-9+/=]|[a-z][A-Z]))[A-Za-z0-9+/]{8,}={0,2}/gu;
/** Well-known secret formats: Stripe secret and restricted keys, webhook signing secrets. */
const SECRET_VALUE = /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]+|\bwhsec_[A-Za-z0-9+/=_-]+/gu;

/**
 * Replaces e-mail addresses (`local@domain.tld`, any script) in linear time: expands around each `@` instead of
 * running a backtracking regular expression over megabyte-long strings.
 */
function scrubEmails(text: string): string {
  if (!text.includes('@')) return text;
  let out = '';
  let copied = 0;
  let at = text.indexOf('@');
  let floor = 0;
  while (at !== -1) {
    let start = at;
    while (start > Math.max(copied, floor) && LOCAL_PART.test(text[start - 1] ?? '')) start--;
    floor = at + 1;
    let end = at + 1;
    while (end < text.length && DOMAIN.test(text[end] ?? '')) end++;
    // Trailing dots and hyphens end a sentence, not the domain (trimmed by hand: `/[.-]+$/` backtracks from every
    // dot, quadratic over a long run of them).
    while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
    const domain = text.slice(at + 1, end);
    if (start < at && TLD.test(domain)) {
      out += text.slice(copied, start) + REDACTED;
      copied = at + 1 + domain.length;
    }
    at = text.indexOf('@', Math.max(at + 1, copied));
  }
  return out + text.slice(copied);
}

function keepScheme(_match: string, scheme: string, space: string): string {
  return `${scheme}${space}${REDACTED}`;
}

/**
 * `text` with e-mail addresses, card numbers, E.164 phone numbers (`+` and 8–15 digits), credentials after
 * `Bearer`/`Basic` (the scheme word stays) and well-known secret keys (`sk_live_…`, `rk_test_…`,
 * `whsec_…`) replaced by {@link REDACTED}; the rest of the text (identifiers around them) stays readable.
 * Linear in the length of `text`.
 * @see PCI DSS v4 req. 3.4 (PAN unreadable wherever stored); RFC 6750 §2.1 (Bearer credentials).
 */
export function scrubText(text: string): string {
  return scrubCards(scrubEmails(text), REDACTED)
    .replace(PHONE, REDACTED)
    .replace(BEARER_VALUE, keepScheme)
    .replace(BASIC_VALUE, keepScheme)
    .replace(SECRET_VALUE, REDACTED);
}
