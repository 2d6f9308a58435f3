/** A digit: ASCII or full-width (U+FF10–U+FF19). */
const DIGIT = '[0-9\\uFF10-\\uFF19]';
/**
 * One separator between card digits: space, tab, line breaks, NBSP, figure, thin and narrow no-break spaces, `.`,
 * `/`, `-`, `_`, `,`.
 */
const SEPARATOR = '[ \\t\\n\\r\\u00A0\\u2007\\u2009\\u202F./_,-]';
/**
 * A maximal run of 13 or more digits with any run of separators between two digits: never starts or ends next to
 * another digit of the same run. The card numbers are looked for inside it, group by group. The leading
 * `(?=digit)` makes the look-behind run only at digits, which keeps the scan linear over long separator runs.
 */
const DIGIT_RUN = new RegExp(
  `(?=${DIGIT})(?<!${DIGIT}${SEPARATOR}*)${DIGIT}(?:${SEPARATOR}*${DIGIT}){12,}(?!${SEPARATOR}*${DIGIT})`,
  'gu',
);
/** A group of a digit run: digits with no separator between them. */
const GROUP = new RegExp(`${DIGIT}+`, 'gu');
const SEPARATORS = new RegExp(`${SEPARATOR}+`, 'gu');
/** Separators only a loose grouping uses: two or more in a row, or a tab, line break, `_` or `,`. */
const LOOSE_SEPARATOR = new RegExp(`${SEPARATOR}{2}|[\\t\\n\\r_,]`, 'u');
/** Fewest digits in each group of a loosely grouped card number (cards print groups of 4–6; `1, 2, 3` is a list). */
const MIN_LOOSE_GROUP = 3;
/** Fewest and most digits of a card number (ISO/IEC 7812-1). */
const MIN_DIGITS = 13;
const MAX_DIGITS = 19;
/** A letter or digit of any script: a digit group touching one is glued into a word. */
const ALNUM = /[\p{L}\p{N}]/u;
/** An ASCII digit. */
const DIGIT_CHAR = /[0-9]/;
/** One character of an identifier word: an ASCII letter or digit. */
const ID_CHAR = /[0-9A-Za-z]/;
/** Fewest characters of an identifier word (a Mongo ObjectId has 24, a UUID without hyphens 32, SHA-1 40). */
const MIN_ID = 20;
/** How far a word is followed each way: a longer one is a blob of an identifier's kind (keeps the scan linear). */
const MAX_ID_SCAN = 256;
/** A UUID (RFC 9562), hyphenated, any version. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** One character of a hyphenated UUID. */
const UUID_CHAR = /[0-9a-fA-F-]/;
/** Length of a hyphenated UUID. */
const UUID_LENGTH = 36;

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
  return (
    digits.length >= MIN_DIGITS && digits.length <= MAX_DIGITS && digits[0]! >= '2' && digits[0]! <= '6' && luhn(digits)
  );
}

/** One group of digits of a run: where it starts and ends in the run. */
interface Group {
  readonly start: number;
  readonly end: number;
}

/**
 * `text` with its card numbers replaced by `replacement`. A card number is 13–19 digits that
 * {@link looksLikeCardNumber} (ASCII or full-width), written whole or in groups separated by spaces, tabs, line
 * breaks, no-break spaces, dots, slashes, hyphens, `_` or `,` (a loose grouping — two separators in a row, a tab,
 * a line break, `_`, `,` — only in groups of 3 or more digits, so `1, 2, 3` is a list). It is found among the
 * groups of a longer run of digits too: `4242424242424242 12/30 123` (a card, its expiry and code),
 * `2026-12-07,4242424242424242,1000` (a CSV line), `[4242424242424242,5555555555554444]`. A group glued to a
 * letter or digit (`ord4242424242424242`) counts when it is the whole card, unless it is the smaller part of an
 * identifier word of 20 or more ASCII letters and digits (`51fb365c46074422950973c7970245f0`: a random hex id holds
 * a Luhn-valid run about once in a thousand); digits inside a hyphenated UUID never count. Linear in the length of
 * `text`.
 * @see PCI DSS v4 req. 3.4 (PAN unreadable wherever stored).
 */
export function scrubCards(text: string, replacement: string): string {
  return text.replace(DIGIT_RUN, (run: string, offset: number) => {
    const groups = [...run.matchAll(GROUP)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
    let out = '';
    let copied = 0;
    for (let i = 0; i < groups.length; ) {
      const last = longestCardFrom(text, run, offset, groups, i);
      if (last < 0) {
        i++;
        continue;
      }
      out += run.slice(copied, (groups[i] as Group).start) + replacement;
      copied = (groups[last] as Group).end;
      i = last + 1;
    }
    return copied === 0 ? run : out + run.slice(copied);
  });
}

/** The last group of the longest card number that starts at group `first`, or -1 when none does. */
function longestCardFrom(text: string, run: string, offset: number, groups: readonly Group[], first: number): number {
  const start = (groups[first] as Group).start;
  const lead = asciiDigits(run[start] ?? '');
  if (lead < '2' || lead > '6') return -1;
  let found = -1;
  let digits = '';
  for (let last = first; last < groups.length; last++) {
    const group = groups[last] as Group;
    digits += asciiDigits(run.slice(group.start, group.end));
    if (digits.length > MAX_DIGITS) break;
    if (!looksLikeCardNumber(digits)) continue;
    const candidate = run.slice(start, group.end);
    if (plausibleGroups(candidate) && placedAsCard(text, candidate, offset + start, last === first)) found = last;
  }
  return found;
}

/**
 * True when the card-like `candidate` at `offset` of `text` stands where a card number would (see
 * {@link scrubCards}): not inside a UUID, and glued to a letter or digit only when it is one whole group that is no
 * identifier's smaller part.
 */
function placedAsCard(text: string, candidate: string, offset: number, whole: boolean): boolean {
  if (insideUuid(text, offset, candidate.length)) return false;
  const glued = ALNUM.test(text[offset - 1] ?? '') || ALNUM.test(text[offset + candidate.length] ?? '');
  if (!glued) return true;
  return whole && !insideIdentifier(text, offset, candidate.length);
}

/** False for a run grouped loosely (see {@link LOOSE_SEPARATOR}) into a group of fewer than 3 digits: a list. */
function plausibleGroups(run: string): boolean {
  if (!LOOSE_SEPARATOR.test(run)) return true;
  return run.split(SEPARATORS).every((group) => group.length >= MIN_LOOSE_GROUP);
}

/** The bounds of the word of `isChar` characters around `[offset, offset + length)`, followed at most `max` each way. */
function wordAround(text: string, offset: number, length: number, isChar: RegExp, max: number) {
  const floor = Math.max(0, offset - max);
  const ceiling = Math.min(text.length, offset + length + max);
  let start = offset;
  while (start > floor && isChar.test(text[start - 1] ?? '')) start--;
  let end = offset + length;
  while (end < ceiling && isChar.test(text[end] ?? '')) end++;
  const cut = (start === floor && start > 0) || (end === ceiling && end < text.length);
  return { start, end, cut };
}

/**
 * True when the digits at `offset` (`length` long) are the smaller part of an identifier word: 20 or more ASCII
 * letters and digits touching no other letter or digit, at least as many of them outside the digits as in them, and
 * a digit among those (random ids mix them; a name glued to a card, `customerCardNumber4242…`, has none). A word
 * longer than the scan is a blob of that kind. `%253D4242424242424242` (`253D` + a card) is no identifier.
 */
function insideIdentifier(text: string, offset: number, length: number): boolean {
  const { start, end, cut } = wordAround(text, offset, length, ID_CHAR, MAX_ID_SCAN);
  if (cut) return true;
  if (ALNUM.test(text[start - 1] ?? '') || ALNUM.test(text[end] ?? '')) return false;
  if (end - start < MIN_ID || end - start - length < length) return false;
  return DIGIT_CHAR.test(text.slice(start, offset)) || DIGIT_CHAR.test(text.slice(offset + length, end));
}

/** True when `[offset, offset + length)` lies inside a hyphenated UUID that touches no other letter or digit. */
function insideUuid(text: string, offset: number, length: number): boolean {
  const { start, end } = wordAround(text, offset, length, UUID_CHAR, UUID_LENGTH);
  if (end - start !== UUID_LENGTH || !UUID.test(text.slice(start, end))) return false;
  return !ALNUM.test(text[start - 1] ?? '') && !ALNUM.test(text[end] ?? '');
}
