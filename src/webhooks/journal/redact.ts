/** What replaces a redacted value, in the journal and in logs. */
export const REDACTED = '[REDACTED]';

/**
 * Default sensitive JSON paths. A path is dot-separated keys; `*` matches any one key or array index, and a
 * leading `**.` matches at any depth. Keys compare case-insensitively. Covers card data (PAN, CVC, expiry,
 * card holder), personal names, e-mail addresses, phone numbers, postal addresses and secrets (passwords,
 * tokens, signing secrets, client secrets, authorization values).
 * @see docs/design.md §5 "Journal"; PCI DSS v4 req. 3.3 (no sensitive
 * authentication data after authorisation).
 */
export const DEFAULT_REDACT_PATHS: readonly string[] = Object.freeze([
  // card data
  '**.card.number',
  '**.card_number',
  '**.cardnumber',
  '**.pan',
  '**.cvc',
  '**.cvv',
  '**.cvc2',
  '**.cvv2',
  '**.exp_month',
  '**.exp_year',
  '**.expiry_month',
  '**.expiry_year',
  '**.card.expiry',
  '**.cardholder',
  '**.card_holder',
  '**.holder_name',
  '**.first6',
  // names
  '**.name',
  '**.first_name',
  '**.last_name',
  '**.full_name',
  '**.customer_name',
  '**.payer_name',
  // e-mail and phone
  '**.email',
  '**.receipt_email',
  '**.customer_email',
  '**.phone',
  '**.phone_number',
  '**.customer_phone',
  // addresses
  '**.address',
  '**.billing_details',
  '**.shipping',
  '**.shipping_details',
  '**.customer_details',
  // secrets
  '**.password',
  '**.secret',
  '**.client_secret',
  '**.token',
  '**.access_token',
  '**.api_key',
  '**.authorization',
  '**.sign_string',
]);

/** Options of {@link createRedactor}. */
export interface RedactionOptions {
  /** JSON paths to redact (syntax of {@link DEFAULT_REDACT_PATHS}). @default DEFAULT_REDACT_PATHS */
  paths?: readonly string[];
  /** More paths, added to `paths` (so the defaults stay). @default [] */
  extraPaths?: readonly string[];
  /**
   * Also replace e-mail addresses and card-number-like digit runs (13–19 digits passing the Luhn check) found
   * inside any string value, under any key. @default true
   */
  scrubValues?: boolean;
}

/** A compiled redaction: the same function is used by the journal and by the logger. */
export interface Redactor {
  /** A deep copy of `value` with every configured path and scrubbed value replaced by `[REDACTED]`; never mutates. */
  redact<T>(value: T): T;
  /** `text` with e-mail addresses and card numbers replaced (for error messages and free text). */
  scrubText(text: string): string;
  /** The configured paths, for callers that also configure pino's own `redact.paths`. */
  readonly paths: readonly string[];
}

interface Pattern {
  /** True when the path may start at any depth (`**.`). */
  readonly anywhere: boolean;
  readonly segments: readonly string[];
}

const LOCAL_PART = /[A-Za-z0-9._%+-]/;
const DOMAIN = /[A-Za-z0-9.-]/;
const TLD = /\.[A-Za-z]{2,}$/;
const DIGIT_RUN = /\d(?:[ -]?\d){12,18}/g;

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

/**
 * Replaces e-mail addresses (`local@domain.tld`) in linear time: expands around each `@` instead of running a
 * backtracking regular expression over megabyte-long strings.
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

function scrub(text: string): string {
  return scrubEmails(text).replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && luhn(digits) ? REDACTED : run;
  });
}

function compile(path: string): Pattern {
  if (typeof path !== 'string' || path.trim() === '')
    throw new TypeError('a redaction path must be a non-empty string');
  const anywhere = path.startsWith('**.');
  const segments = (anywhere ? path.slice(3) : path).split('.').map((s) => s.toLowerCase());
  if (segments.some((s) => s === '' || s === '**')) {
    throw new TypeError(`redaction path ${JSON.stringify(path)}: empty segment or "**" not at the start`);
  }
  return { anywhere, segments };
}

function endsWith(trail: readonly string[], pattern: Pattern): boolean {
  const { segments } = pattern;
  if (pattern.anywhere ? trail.length < segments.length : trail.length !== segments.length) return false;
  const offset = trail.length - segments.length;
  return segments.every((s, i) => s === '*' || s === trail[offset + i]);
}

/**
 * Compiles redaction paths into a {@link Redactor}. Matching is on the key trail from the root (`params.account.phone`),
 * so `**.phone` redacts a phone number at any depth and `params.account.*` every field of one object. Whole
 * subtrees are replaced (redacting `billing_details` hides the name, e-mail and address inside it).
 * @throws {TypeError} an empty path or a `**` anywhere but at the start.
 * @see docs/design.md §5 (journal redaction); fixtures README (payloads carry names, e-mails, phone numbers).
 * @example createRedactor({ extraPaths: ['data.object.metadata.passport'] }).redact(payload)
 */
export function createRedactor(options: RedactionOptions = {}): Redactor {
  const paths = Object.freeze([...(options.paths ?? DEFAULT_REDACT_PATHS), ...(options.extraPaths ?? [])]);
  const patterns = paths.map(compile);
  const scrubValues = options.scrubValues ?? true;

  function walk(value: unknown, trail: string[]): unknown {
    if (trail.length > 0 && patterns.some((p) => endsWith(trail, p))) return REDACTED;
    if (typeof value === 'string') return scrubValues ? scrub(value) : value;
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...trail, String(i)]));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = walk(item, [...trail, key.toLowerCase()]);
      return out;
    }
    return value;
  }

  return Object.freeze({
    paths,
    redact: <T>(value: T): T => walk(value, []) as T,
    scrubText: (text: string) => (scrubValues ? scrub(text) : text),
  });
}
