import { MalformedWebhookPayload } from './malformed-webhook-payload.js';
import type { JsonObject } from './payload-reader.js';
import type { ProviderEvent } from './provider-event.js';

/** Stripe `metadata`: string keys and string values (Stripe refuses anything else on write). */
export type StripeMetadata = { readonly [key: string]: string };

/** A Stripe id, or the expanded object it names (`expand[]`); read the id with {@link stripeIdOf}. */
export type StripeRef<T extends { readonly id: string }> = string | T;

/** Fields every typed Stripe object has; the rest of the object stays readable through the index signature. */
interface StripeObjectBase {
  readonly id: string;
  readonly metadata?: StripeMetadata;
  readonly livemode?: boolean;
  /** Unix seconds. */
  readonly created?: number;
  readonly [field: string]: unknown;
}

/** A Stripe Customer (`object: "customer"`). Name, e-mail and phone are personal data: never log them. */
export interface StripeCustomer extends StripeObjectBase {
  readonly object: 'customer';
  readonly email?: string | null;
  readonly name?: string | null;
  /** ISO 4217, lower case as Stripe sends it. */
  readonly currency?: string | null;
}

/** A Stripe PaymentIntent (`object: "payment_intent"`). Amounts are integer minor units of `currency`. */
export interface StripePaymentIntent extends StripeObjectBase {
  readonly object: 'payment_intent';
  readonly amount: number;
  readonly amount_received?: number;
  readonly currency: string;
  readonly status: string;
  readonly customer?: StripeRef<StripeCustomer> | null;
  readonly latest_charge?: string | null;
  readonly invoice?: string | null;
}

/** A Stripe Charge (`object: "charge"`). Amounts are integer minor units of `currency`. */
export interface StripeCharge extends StripeObjectBase {
  readonly object: 'charge';
  readonly amount: number;
  readonly amount_captured?: number;
  readonly amount_refunded?: number;
  readonly currency: string;
  readonly status: string;
  readonly paid?: boolean;
  readonly refunded?: boolean;
  readonly customer?: StripeRef<StripeCustomer> | null;
  readonly payment_intent?: StripeRef<StripePaymentIntent> | null;
  readonly invoice?: string | null;
}

/** A Stripe Refund (`object: "refund"`). `amount` is integer minor units of `currency`. */
export interface StripeRefund extends StripeObjectBase {
  readonly object: 'refund';
  readonly amount: number;
  readonly currency: string;
  readonly status?: string | null;
  readonly reason?: string | null;
  readonly charge?: StripeRef<StripeCharge> | null;
  readonly payment_intent?: StripeRef<StripePaymentIntent> | null;
}

/** A Stripe Invoice (`object: "invoice"`). Amounts are integer minor units of `currency`. */
export interface StripeInvoice extends StripeObjectBase {
  readonly object: 'invoice';
  readonly customer: StripeRef<StripeCustomer> | null;
  readonly currency: string;
  /** Absent on some invoice payloads (a thin or older-version event): read it as possibly `undefined`. */
  readonly amount_due?: number;
  /** Absent on some invoice payloads (a thin or older-version event): read it as possibly `undefined`. */
  readonly amount_paid?: number;
  readonly amount_remaining?: number;
  readonly total?: number;
  readonly status?: string | null;
  readonly number?: string | null;
  readonly billing_reason?: string | null;
  readonly subscription?: string | null;
  /** Unix seconds. */
  readonly period_start?: number;
  /** Unix seconds. */
  readonly period_end?: number;
}

/** A Stripe Checkout Session (`object: "checkout.session"`). Amounts are integer minor units of `currency`. */
export interface StripeCheckoutSession extends StripeObjectBase {
  readonly object: 'checkout.session';
  readonly mode?: string;
  readonly status?: string | null;
  readonly payment_status?: string;
  readonly amount_total?: number | null;
  readonly amount_subtotal?: number | null;
  readonly currency?: string | null;
  readonly client_reference_id?: string | null;
  readonly customer?: StripeRef<StripeCustomer> | null;
  readonly payment_intent?: StripeRef<StripePaymentIntent> | null;
  readonly invoice?: string | null;
  readonly subscription?: string | null;
}

type FieldKind = 'string' | 'integer' | 'boolean' | 'ref';
/** The typed fields per object: required ones must be present (and not null), optional ones typed when present. */
type Shape = {
  readonly required: Readonly<Record<string, FieldKind>>;
  readonly optional: Readonly<Record<string, FieldKind>>;
};

const SHAPES = {
  customer: { required: {}, optional: { email: 'string', name: 'string', currency: 'string' } },
  payment_intent: {
    required: { amount: 'integer', currency: 'string', status: 'string' },
    optional: { amount_received: 'integer', customer: 'ref', latest_charge: 'string', invoice: 'string' },
  },
  charge: {
    required: { amount: 'integer', currency: 'string', status: 'string' },
    optional: {
      amount_captured: 'integer',
      amount_refunded: 'integer',
      paid: 'boolean',
      refunded: 'boolean',
      customer: 'ref',
      payment_intent: 'ref',
      invoice: 'string',
    },
  },
  refund: {
    required: { amount: 'integer', currency: 'string' },
    optional: { status: 'string', reason: 'string', charge: 'ref', payment_intent: 'ref' },
  },
  invoice: {
    required: { currency: 'string' },
    optional: {
      amount_due: 'integer',
      amount_paid: 'integer',
      customer: 'ref',
      amount_remaining: 'integer',
      total: 'integer',
      status: 'string',
      number: 'string',
      billing_reason: 'string',
      subscription: 'string',
      period_start: 'integer',
      period_end: 'integer',
    },
  },
  'checkout.session': {
    required: {},
    optional: {
      mode: 'string',
      status: 'string',
      payment_status: 'string',
      amount_total: 'integer',
      amount_subtotal: 'integer',
      currency: 'string',
      client_reference_id: 'string',
      customer: 'ref',
      payment_intent: 'ref',
      invoice: 'string',
      subscription: 'string',
    },
  },
} as const satisfies Record<string, Shape>;

/** The Stripe object types {@link stripeObject} checks and types. */
export type StripeObjectType = keyof typeof SHAPES;

/** What {@link stripeObject} returns per object type. */
export interface StripeObjectOf {
  customer: StripeCustomer;
  payment_intent: StripePaymentIntent;
  charge: StripeCharge;
  refund: StripeRefund;
  invoice: StripeInvoice;
  'checkout.session': StripeCheckoutSession;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fits(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'ref':
      return typeof value === 'string' || (isObject(value) && typeof value.id === 'string');
  }
}

function malformed(event: ProviderEvent, path: string, expectation: string): never {
  throw new MalformedWebhookPayload(event.provider, path, expectation);
}

/**
 * The raw object a Stripe event is about (`data.object`), for any event type — also the ones payonce has no
 * typed accessor for. @throws {MalformedWebhookPayload} the payload has no `data.object` object.
 */
export function stripeEventObject(event: ProviderEvent): JsonObject {
  const payload = event.payload;
  const data = isObject(payload) ? payload.data : undefined;
  const object = isObject(data) ? data.object : undefined;
  return isObject(object) ? object : malformed(event, 'data.object', 'must be an object');
}

/**
 * The object of a Stripe event, typed, when it is of `type` (`data.object.object`), else `null` — so a handler
 * reads `invoice.customer`, `invoice.amount_paid` or `session.client_reference_id` without casting `unknown`:
 * `const invoice = stripeObject(event, 'invoice'); if (invoice) grant(invoice.customer, invoice.amount_paid)`.
 * The fields each type declares are checked (required ones present, every declared one of its JSON type when not
 * null: amounts safe integers of minor units, metadata string → string); other fields pass through unchecked
 * and untyped (`object.some_field: unknown`). Which object an event type carries is Stripe's: `invoice.paid` →
 * `invoice`, `charge.refunded` → `charge`, `checkout.session.completed` → `checkout.session`, … .
 * Required are only the fields Stripe always sends on that object (`id`; a PaymentIntent's or Charge's `amount`,
 * `currency`, `status`; a Refund's `amount`, `currency`; an Invoice's `currency`); every other declared field is
 * optional, as an invoice's `amount_due` / `amount_paid` may be absent (issue #34 item 22).
 * @throws {MalformedWebhookPayload} the object is of `type` but a declared field has the wrong type or a required
 *   one is missing: thrown inside an intake handler it is answered 400 `MALFORMED_WEBHOOK_PAYLOAD`, journaled
 *   `rejected`, and the receipt is not completed (the redelivery is answered 400 again), as any payload a
 *   profile cannot read.
 * @see https://docs.stripe.com/api/events/object (`data.object`); https://docs.stripe.com/api/invoices/object;
 *   https://docs.stripe.com/api/checkout/sessions/object; https://docs.stripe.com/api/payment_intents/object.
 */
export function stripeObject<T extends StripeObjectType>(event: ProviderEvent, type: T): StripeObjectOf[T] | null {
  const object = stripeEventObject(event);
  if (object.object !== type) return null;
  if (typeof object.id !== 'string' || object.id === '')
    malformed(event, 'data.object.id', 'must be a non-empty string');
  const shape: Shape = SHAPES[type];
  for (const [field, kind] of Object.entries(shape.required)) {
    if (!fits(kind, object[field])) malformed(event, `data.object.${field}`, `must be a ${kind}`);
  }
  for (const [field, kind] of Object.entries(shape.optional)) {
    const value = object[field];
    if (value !== undefined && value !== null && !fits(kind, value)) {
      malformed(event, `data.object.${field}`, `must be a ${kind} or null`);
    }
  }
  const metadata = object.metadata;
  if (metadata !== undefined && metadata !== null) {
    if (!isObject(metadata) || !Object.values(metadata).every((value) => typeof value === 'string')) {
      malformed(event, 'data.object.metadata', 'must map strings to strings');
    }
  }
  return object as unknown as StripeObjectOf[T];
}

/** The id of a Stripe reference: the string itself, or the `id` of an expanded object; `null` for none. */
export function stripeIdOf(ref: StripeRef<{ readonly id: string }> | null | undefined): string | null {
  if (ref === null || ref === undefined) return null;
  return typeof ref === 'string' ? ref : ref.id;
}

/**
 * The `data` object of a Standard Webhooks payload (`{ type, timestamp, data }`), whatever the sender put in it:
 * read its fields as `unknown` and check them, or pass a type you trust. @throws {MalformedWebhookPayload} the
 * payload has no `data` object (the spec requires one).
 * @see https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md "Payload structure".
 */
export function standardWebhooksData(event: ProviderEvent): JsonObject {
  const payload = event.payload;
  const data = isObject(payload) ? payload.data : undefined;
  return isObject(data) ? data : malformed(event, 'data', 'must be an object');
}
