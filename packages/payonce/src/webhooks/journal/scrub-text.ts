/** What replaces a redacted value, in the journal and in logs. */
export const REDACTED = '[REDACTED]';

/** One character of an e-mail local part: letters and digits of any script (IDN), marks, `._%+-`. */
const LOCAL_PART = /[\p{L}\p{N}\p{M}._%+-]/u;
/** One character of an e-mail domain: letters and digits of any script (IDN), marks, `.`, `-`. */
const DOMAIN = /[\p{L}\p{N}\p{M}.-]/u;
/** A top-level domain: two or more letters of any script, or an A-label (`xn--…`). */
const TLD = /\.(?:[\p{L}\p{M}]{2,}|xn--[a-z0-9-]+)$/iu;

/** A digit: ASCII or full-width (U+FF10–U+FF19). */
const DIGIT = '[0-9\\uFF10-\\uFF19]';
/**
 * One separator between card digits: space, tab, line breaks, NBSP, figure, thin and narrow no-break spaces, `.`,
 * `/`, `-`, `_`, `,`.
 */
const SEPARATOR = '[ \\t\\n\\r\\u00A0\\u2007\\u2009\\u202F./_,-]';
/**
 * A maximal run of 13–19 digits with any run of separators between two digits: never starts or ends next to
 * another digit of the same run, so a longer number (or its tail) is no candidate. The leading `(?=digit)` makes
 * the look-behind run only at digits, which keeps the scan linear over long separator runs.
 */
const DIGIT_RUN = new RegExp(
  `(?=${DIGIT})(?<!${DIGIT}${SEPARATOR}*)${DIGIT}(?:${SEPARATOR}*${DIGIT}){12,}(?!${SEPARATOR}*${DIGIT})`,
  'gu',
);
/** One card digit (ASCII or full-width). */
const IS_DIGIT = new RegExp(`^${DIGIT}$`, 'u');
const SEPARATORS = new RegExp(`${SEPARATOR}+`, 'gu');
/** Separators only a loose grouping uses: two or more in a row, or a tab, line break, `_` or `,`. */
const LOOSE_SEPARATOR = new RegExp(`${SEPARATOR}{2}|[\\t\\n\\r_,]`, 'u');
/** Fewest digits in each group of a loosely grouped card number (cards print groups of 4–6; `1, 2, 3` is a list). */
const MIN_LOOSE_GROUP = 3;
/** A letter, digit or `_` of any script: a digit run touching one is glued into a word. */
const WORD = /[\p{L}\p{N}_]/u;
/** One character of a hexadecimal identifier (a UUID without hyphens, a Mongo ObjectId, a hash). */
const HEX = /[0-9a-fA-F]/;
/** A letter or digit of any script: what a hexadecimal identifier must not touch. */
const ALNUM = /[\p{L}\p{N}]/u;
/** Fewest characters of a hexadecimal identifier (an ObjectId has 24, a UUID without hyphens 32, SHA-1 40). */
const MIN_HEX_ID = 20;
/** How far the hex word is followed each way: a longer one is a hex blob, read as such (keeps the scan linear). */
const MAX_HEX_SCAN = 256;
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

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Full-width digits as ASCII. */
function asciiDigits(text: string): string {
  return text.replace(/[\uFF10-\uFF19]/gu, (d) => String.fromCharCode(d.charCodeAt(0) - 0xff10 + 48));
}

/**
 * True when `digits` (ASCII, no separators) look like a payment card number: 13–19 digits, a major industry
 * identifier of card issuers (first digit 2–6: Mastercard 2-series, Amex/JCB/Diners, Visa, Mastercard,
 * Discover/UnionPay/Maestro; ISO/IEC 7812-1) and a valid Luhn check digit. The first-digit rule keeps epoch
 * milliseconds (`17…`) readable.
 */
export function looksLikeCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && digits[0]! >= '2' && digits[0]! <= '6' && luhn(digits);
}

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
    const domain = text.slice(at + 1, end).replace(/[.-]+$/, '');
    if (start < at && TLD.test(domain)) {
      out += text.slice(copied, start) + REDACTED;
      copied = at + 1 + domain.length;
    }
    at = text.indexOf('@', Math.max(at + 1, copied));
  }
  return out + text.slice(copied);
}

/** False for a run grouped loosely (see {@link LOOSE_SEPARATOR}) into a group of fewer than 3 digits: a list. */
function plausibleGroups(run: string): boolean {
  if (!LOOSE_SEPARATOR.test(run)) return true;
  return run.split(SEPARATORS).every((group) => group.length >= MIN_LOOSE_GROUP);
}

/**
 * Replaces card numbers: a digit run (ASCII or full-width, grouped by any run of spaces, tabs, line breaks, no-break
 * spaces, dots, slashes, hyphens, `_` or `,` — loose groupings in groups of 3 or more digits — or not) that {@link looksLikeCardNumber}. A run glued to a letter or `_` (`ord4242424242424242`,
 * `evt_4242…`) counts only when ungrouped and not inside a hexadecimal identifier, so hex identifiers such as UUIDs
 * (`12345678-1234-…`, `51fb365c46074422950973c7970245f0`) stay readable.
 */
function scrubCards(text: string): string {
  return text.replace(DIGIT_RUN, (run: string, offset: number) => {
    if (isCardAt(text, run, offset)) return REDACTED;
    // `evt_x_0_4242…`, `evt_bc000354_4242…`: leading id parts (before a `_`) that are no part of the card are kept.
    // Only suffixes of at most 19 digits can be cards: walk back from the end, so a long run costs 19 digits' work.
    let card = -1;
    let digits = 0;
    for (let i = run.length - 1; i > 0 && digits < 19; i--) {
      if (!IS_DIGIT.test(run[i] ?? '')) continue;
      digits++;
      if (run[i - 1] === '_' && isCardAt(text, run.slice(i), offset + i)) card = i;
    }
    return card < 0 ? run : run.slice(0, card) + REDACTED;
  });
}

/** True when `run`, found at `offset` of `text`, is a card number to redact (see {@link scrubCards}). */
function isCardAt(text: string, run: string, offset: number): boolean {
  const digits = asciiDigits(run).replace(SEPARATORS, '');
  if (!looksLikeCardNumber(digits) || !plausibleGroups(run)) return false;
  const glued = WORD.test(text[offset - 1] ?? '') || WORD.test(text[offset + run.length] ?? '');
  if (!glued) return true;
  return digits.length === run.length && !insideHexIdentifier(text, offset, run.length);
}

/**
 * True when the digits at `offset` (`length` long) are part of a hexadecimal identifier: a word of at least
 * {@link MIN_HEX_ID} hex characters with a letter `a`–`f` in it (`51fb365c46074422950973c7970245f0`). A random
 * 32-character hex id holds a Luhn-valid run of 13+ digits about once in a thousand; such an id must stay readable.
 * `ord4242424242424242` is no hex word (`o`, `r`), so the card pasted into it is still redacted.
 */
function insideHexIdentifier(text: string, offset: number, length: number): boolean {
  const floor = Math.max(0, offset - MAX_HEX_SCAN);
  const ceiling = Math.min(text.length, offset + length + MAX_HEX_SCAN);
  let start = offset;
  while (start > floor && HEX.test(text[start - 1] ?? '')) start--;
  let end = offset + length;
  while (end < ceiling && HEX.test(text[end] ?? '')) end++;
  const blob = (start === floor && start > 0) || (end === ceiling && end < text.length);
  if (!blob && (ALNUM.test(text[start - 1] ?? '') || ALNUM.test(text[end] ?? ''))) return false;
  return end - start >= MIN_HEX_ID && end - start > length;
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
  return scrubCards(scrubEmails(text))
    .replace(PHONE, REDACTED)
    .replace(BEARER_VALUE, keepScheme)
    .replace(BASIC_VALUE, keepScheme)
    .replace(SECRET_VALUE, REDACTED);
}
