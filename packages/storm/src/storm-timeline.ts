/**
 * Who did what in one event of an order's timeline:
 * - `storm→app`: a request the storm made to the app (create order, start payment, a crafted webhook);
 * - `app→provider`: an API request the app made to the sandbox provider (create a PaymentIntent, a refund…),
 *   with the faults the sandbox injected into it;
 * - `provider→app`: a webhook delivery the sandbox sent, with the app's answer and the attempt number;
 * - `provider`: something the sandbox did on its own (a refund applied, a fault that struck an event);
 * - `app`: a change in the order's state or effects as the adapter's `readOrder` reported it (status, paid
 *   transitions, fulfilments, jobs, refunds), at the time the storm saw it.
 */
export type TimelineActor = 'storm→app' | 'app→provider' | 'provider→app' | 'provider' | 'app';

/** One thing that happened to an order during a storm run (the HTML report's timeline, the JSON report's `timeline`). */
export interface StormTimelineEvent {
  /** When, ms since the epoch (the sandbox's clock for provider events, the storm's for the rest). */
  readonly atMs: number;
  /** The order it is about; `null` when it could not be tied to one (e.g. a create-order call that failed). */
  readonly orderId: string | null;
  readonly actor: TimelineActor;
  /** What happened: `POST /v1/payment_intents`, `create order`, `payment_intent.succeeded (attempt)`, `status paid`… */
  readonly what: string;
  /** The HTTP status answered, `null` when there was none or it does not apply. */
  readonly status: number | null;
  /** The Idempotency-Key the request carried, if any (an identifier, kept readable). */
  readonly idempotencyKey: string | null;
  /** The delivery attempt number (webhooks), else `null`. */
  readonly attempt: number | null;
  /** Faults the sandbox injected into it (`drop-after-commit`, `webhook-duplicate`…). */
  readonly faults: readonly string[];
  /** Anything else worth reading (an error, an event id, a payment id), already redacted. */
  readonly detail: string | null;
}

/** Patterns of secrets that must never reach a report: signing secrets, API keys, bearer tokens, signatures. */
const SECRET_PATTERNS: readonly RegExp[] = [
  // `%` and `\` too: a secret URL-encoded (`%2B`) or JSON-escaped (`\/`) keeps going.
  /whsec_[A-Za-z0-9+/=_%\\-]+/g,
  /\b(?:sk|rk|pk)_(?:test|live)_[A-Za-z0-9_]+/g,
  /\bBearer\s+[^\s"',;]+/gi,
  // RFC 7617 credentials (Payme's `Basic base64(Paycom:<key>)`): base64 of 8 or more characters with a digit, `+`,
  // `/` or `=`, or a capital after a small letter — not an English word (`wrong Basic credentials`).
  /\b[Bb][Aa][Ss][Ii][Cc]\s+(?=[A-Za-z0-9+/]*(?:[0-9+/=]|[a-z][A-Z]))[A-Za-z0-9+/]{8,}={0,2}/g,
  // A Telegram bot token (`<bot id>:<35 characters>`), also inside `https://api.telegram.org/bot<token>/…`.
  /(?<!\d)\d{5,}:[A-Za-z0-9_-]{30,}/g,
  /\b(?:v1|t)=[0-9a-f]{16,}/g,
  /\bv1,[A-Za-z0-9+/=]{20,}/g,
];

/**
 * `text` with every secret it contains (webhook signing secrets `whsec_…`, API keys `sk_test_…`, bearer tokens,
 * Stripe and Standard Webhooks signatures, `Basic` credentials, Telegram bot tokens) and every one of `literals` (the
 * run's own credentials, {@link literalSecrets}) replaced by `[redacted]`; identifiers (order ids, idempotency keys,
 * event and payment ids) stay readable. Used on every string a storm report carries.
 */
export function redactSecrets(text: string, literals: readonly string[] = []): string {
  let out = text;
  for (const literal of literals) out = out.split(literal).join('[redacted]');
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}

/** Fewest characters of a credential {@link literalSecrets} keeps (a shorter one would redact ordinary words). */
const MIN_LITERAL = 6;

/**
 * The forms in which the credentials a run was given (`secrets`: a Payme key, a Click SECRET_KEY, an Uzum password,
 * a Telegram secret token) can appear in an app's answer or error text: as given, URL-encoded and JSON-escaped.
 * Shorter than 6 characters or empty: left out.
 */
export function literalSecrets(secrets: readonly string[]): string[] {
  const forms = secrets
    .filter((secret) => secret.length >= MIN_LITERAL)
    .flatMap((secret) => [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  // Longest first: a form that contains another is replaced whole.
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/**
 * `value` with {@link redactSecrets} (and `literals`, see {@link literalSecrets}) applied to every string inside it (arrays and plain objects copied, frozen
 * where they were; numbers, booleans and `null` kept): for a scenario's whole result, whose reasons, notes and order
 * problems can quote an adapter's or an app's error text carrying the run's test credentials.
 */
export function redactAll<T>(value: T, literals: readonly string[] = []): T {
  if (typeof value === 'string') return redactSecrets(value, literals) as T;
  if (Array.isArray(value)) {
    const copy = value.map((item: unknown) => redactAll(item, literals));
    return (Object.isFrozen(value) ? Object.freeze(copy) : copy) as T;
  }
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactAll(item, literals);
  return (Object.isFrozen(value) ? Object.freeze(copy) : copy) as T;
}

/**
 * A timeline event with defaults for the fields that do not apply, every string redacted. An id that is not a
 * string (an adapter that handed over a numeric order id) is kept as its decimal string, never a crash.
 */
export function timelineEvent(
  event: Pick<StormTimelineEvent, 'atMs' | 'orderId' | 'actor' | 'what'> & Partial<StormTimelineEvent>,
): StormTimelineEvent {
  const clean = (value: unknown) => (value == null ? null : redactSecrets(String(value)));
  return Object.freeze({
    atMs: event.atMs,
    orderId: clean(event.orderId),
    actor: event.actor,
    what: redactSecrets(event.what),
    status: event.status ?? null,
    idempotencyKey: clean(event.idempotencyKey),
    attempt: event.attempt ?? null,
    faults: Object.freeze((event.faults ?? []).map((fault) => redactSecrets(fault))),
    detail: clean(event.detail),
  });
}

/** Events in time order (stable: events at the same ms keep the order they were recorded in). */
export function inTimeOrder(events: readonly StormTimelineEvent[]): readonly StormTimelineEvent[] {
  return Object.freeze(
    events
      .map((event, i) => ({ event, i }))
      .sort((a, b) => a.event.atMs - b.event.atMs || a.i - b.i)
      .map(({ event }) => event),
  );
}
