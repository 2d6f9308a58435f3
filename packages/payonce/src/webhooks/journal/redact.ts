import { looksLikeCardNumber, REDACTED, scrubText } from './scrub-text.js';

export { REDACTED } from './scrub-text.js';

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
  '**.auth',
  '**.sign_string',
]);

/** Options of {@link createRedactor}. */
export interface RedactionOptions {
  /** JSON paths to redact (syntax of {@link DEFAULT_REDACT_PATHS}). @default DEFAULT_REDACT_PATHS */
  paths?: readonly string[];
  /** More paths, added to `paths` (so the defaults stay). @default [] */
  extraPaths?: readonly string[];
  /**
   * Also replace, under any key, what `scrubText` finds inside string values (e-mail addresses of any script,
   * card numbers however grouped or glued to a letter, E.164 phone numbers, `Bearer`/`Basic` credentials, secret
   * keys), integer JSON numbers that look like a card number, and e-mail addresses or card numbers used as object
   * keys. The identifier around a card number stays readable (`evt_[REDACTED]`). @default true
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
  /**
   * `text` with e-mail addresses, card numbers, phone numbers and credentials replaced (for error messages, free
   * text and identifiers such as the journal's id columns).
   */
  scrubText(text: string): string;
  /** The configured paths, for callers that also configure pino's own `redact.paths`. */
  readonly paths: readonly string[];
}

interface Pattern {
  /** True when the path may start at any depth (`**.`). */
  readonly anywhere: boolean;
  readonly segments: readonly string[];
}

/** True for an integer JSON number (or bigint) whose digits look like a card number (`4242424242424242`). */
function cardLikeNumber(value: unknown): boolean {
  if (typeof value === 'bigint') return looksLikeCardNumber(value < 0n ? (-value).toString() : value.toString());
  return typeof value === 'number' && Number.isInteger(value) && looksLikeCardNumber(Math.abs(value).toFixed(0));
}

/**
 * The key to copy `key` under: itself, or scrubbed when it holds an e-mail address or card number, numbered
 * (`[REDACTED]#2`, `#3`…) when an earlier key of the object already became the same text. `next` remembers the
 * next number per scrubbed text, so an object of many such keys is copied in linear time.
 */
function copyKey(out: Record<string, unknown>, key: string, next: Map<string, number>): string {
  const scrubbed = scrubText(key);
  if (scrubbed === key || !Object.hasOwn(out, scrubbed)) return scrubbed;
  let n = next.get(scrubbed) ?? 2;
  while (Object.hasOwn(out, `${scrubbed}#${n}`)) n++;
  next.set(scrubbed, n + 1);
  return `${scrubbed}#${n}`;
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
      if (typeof value === 'string') return scrubValues ? scrubText(value) : value;
      if (scrubValues && cardLikeNumber(value)) return REDACTED;
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
        const next = new Map<string, number>();
        for (const [key, item] of Object.entries(source)) {
          const copied = visit(item, { key: key.toLowerCase(), parent: trail });
          out[scrubValues ? copyKey(out, key, next) : key] = copied;
        }
      }
    }
    return result;
  }

  return Object.freeze({
    paths,
    redact: <T>(value: T): T => redactValue(value) as T,
    scrubText: (text: string) => (scrubValues ? scrubText(text) : text),
  });
}
