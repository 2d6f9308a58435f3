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
   * Also replace e-mail addresses and card numbers found inside any string value, under any key: 13–19 digits
   * passing the Luhn check, grouped by spaces or hyphens or not, standing alone (digits inside an identifier such
   * as `evt_4242424242424242` stay readable). @default true
   */
  scrubValues?: boolean;
}

/** A compiled redaction: the same function is used by the journal and by the logger. */
export interface Redactor {
  /**
   * A deep copy of `value` with every configured path and scrubbed value replaced by `[REDACTED]`; never mutates.
   * Iterative (an explicit stack), so any nesting depth is safe; an object met twice is copied once (a cycle
   * stays a cycle in the copy).
   */
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
/**
 * 13–19 digits, optionally grouped by single spaces or hyphens, standing alone: not preceded or followed by a
 * letter, digit, `_` or `-`. So `4242 4242 4242 4242` and `card=4242424242424242&` are candidates, while the
 * digits inside identifiers (`evt_4242424242424242`, `msg_x_4242424242424242`, `pi-4242424242424242`) are not.
 */
const DIGIT_RUN = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g;

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

/** The key trail from the root as a linked list, leaf first (`{ key: 'phone', parent: { key: 'account', … } }`). */
interface Trail {
  readonly key: string;
  readonly parent: Trail | null;
}

/** A container still to copy: its source, the copy being filled, and the trail of keys that leads to it. */
interface Frame {
  readonly source: object;
  readonly target: unknown[] | Record<string, unknown>;
  readonly trail: Trail | null;
}

/** True when the trail ends with the pattern's segments (and, for a rooted pattern, has exactly as many keys). */
function endsWith(trail: Trail, pattern: Pattern): boolean {
  const { segments } = pattern;
  let node: Trail | null = trail;
  for (let i = segments.length - 1; i >= 0; i--) {
    if (node === null) return false;
    const segment = segments[i];
    if (segment !== '*' && segment !== node.key) return false;
    node = node.parent;
  }
  return pattern.anywhere || node === null;
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

  // A key can only end a pattern whose last segment is that key or `*`: the patterns are indexed by it, so each key
  // of a payload is compared with a handful of patterns instead of all of them (the same answers).
  const byLast = new Map<string, Pattern[]>();
  const anyLast: Pattern[] = [];
  for (const pattern of patterns) {
    const last = pattern.segments[pattern.segments.length - 1]!;
    if (last === '*') anyLast.push(pattern);
    else byLast.set(last, [...(byLast.get(last) ?? []), pattern]);
  }
  const matches = (trail: Trail | null): boolean => {
    if (trail === null) return false;
    const named = byLast.get(trail.key);
    if (named?.some((p) => endsWith(trail, p))) return true;
    return anyLast.length > 0 && anyLast.some((p) => endsWith(trail, p));
  };

  /** A copy of `root` built with an explicit stack: no recursion, whatever the nesting (attacker input). */
  function redactValue(root: unknown): unknown {
    const pending: Frame[] = [];
    const copies = new Map<object, unknown>();
    const visit = (value: unknown, trail: Trail | null): unknown => {
      if (matches(trail)) return REDACTED;
      if (typeof value === 'string') return scrubValues ? scrub(value) : value;
      if (typeof value !== 'object' || value === null) return value;
      const known = copies.get(value);
      if (known !== undefined) return known;
      const target: unknown[] | Record<string, unknown> = Array.isArray(value) ? new Array(value.length) : {};
      copies.set(value, target);
      pending.push({ source: value, target, trail });
      return target;
    };
    const result = visit(root, null);
    for (let frame = pending.pop(); frame !== undefined; frame = pending.pop()) {
      const { source, target, trail } = frame;
      if (Array.isArray(source)) {
        const out = target as unknown[];
        for (let i = 0; i < source.length; i++) out[i] = visit(source[i], { key: String(i), parent: trail });
      } else {
        const out = target as Record<string, unknown>;
        for (const [key, item] of Object.entries(source)) {
          out[key] = visit(item, { key: key.toLowerCase(), parent: trail });
        }
      }
    }
    return result;
  }

  return Object.freeze({
    paths,
    redact: <T>(value: T): T => redactValue(value) as T,
    scrubText: (text: string) => (scrubValues ? scrub(text) : text),
  });
}
