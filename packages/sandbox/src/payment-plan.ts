import { InvalidOption } from 'payonce/internal/core/errors.js';

/**
 * What an API request's HTTP answer suffers (fault injection on the response, docs/design.md §8):
 * - `none`: answers normally;
 * - `drop-after-commit`: the payment is created and its result stored under the idempotency key, then the
 *   connection is destroyed without an answer (the client sees a reset);
 * - `gateway-timeout-after-commit`: the payment is created, the answer is `504` with an empty body (a proxy gave up);
 * - `hang-after-commit`: the payment is created, then nothing is answered for `hangMs`, then the connection is
 *   destroyed (the client's own timeout fires first);
 * - `hang-before-commit`: nothing is created; the request hangs for `hangMs` with its key in flight, then the
 *   connection is destroyed;
 * - `500-before-commit` / `503-before-commit`: nothing happens; `500`/`503 api_error` (a retry runs the request);
 * - `500-after-commit` / `503-after-commit`: the request takes effect and its real answer is stored under the
 *   idempotency key, but this answer is `500`/`503 api_error` (a retry with the key gets the stored answer);
 * - `rate-limit`: nothing happens; `429 rate_limit_error` with `Retry-After: retryAfterSec`.
 */
export type ResponseFault =
  | 'none'
  | 'drop-after-commit'
  | 'gateway-timeout-after-commit'
  | 'hang-after-commit'
  | 'hang-before-commit'
  | '500-before-commit'
  | '500-after-commit'
  | '503-before-commit'
  | '503-after-commit'
  | 'rate-limit';

/**
 * How a created payment ends: `succeed` (processing, then succeeded after `settleAfterMs`: one charge),
 * `decline` (the API answers `402 card_error` with `declineCode`; a `payment_intent.payment_failed` event follows;
 * no charge),
 * `requires_action` (waits for `controls.settle`; `next_action.redirect_to_url`), `hold` (stays `processing`
 * until `controls.settle`).
 */
export type PaymentOutcome = 'succeed' | 'decline' | 'requires_action' | 'hold';

/** How an injected copy with an altered amount is made: body changed after signing, or signed after the change. */
export type AmountTamper = 'none' | 'in-transit' | 'resigned';

/**
 * The fault knobs of one create-payment request and of the payment it creates. Every field is optional; unset
 * fields fall back to the sandbox defaults (`SandboxOptions.defaults`, `controls.setDefaults`). Durations marked
 * "scaled" are multiplied by `SandboxOptions.timeScale`; the others are real milliseconds, because they race the
 * client's own timeout. @see docs/design.md §8 "Fault injection".
 */
export interface PaymentPlan {
  /** What happens to the HTTP answer of the create request. @default 'none' */
  readonly responseFault?: ResponseFault;
  /** Slow response: wait this long (real ms) before handling any API request. @default 0 */
  readonly responseDelayMs?: number;
  /** Duration of a `hang-*` fault in real ms before the connection is destroyed. @default 30_000 */
  readonly hangMs?: number;
  /** `Retry-After` seconds of a `rate-limit` answer. @default 1 */
  readonly retryAfterSec?: number;
  /** `decline_code` of a `decline` outcome (`insufficient_funds`, `lost_card`…). @default 'generic_decline' */
  readonly declineCode?: string;
  /** How the payment ends. @default 'succeed' */
  readonly outcome?: PaymentOutcome;
  /** Time from creation to settlement for `succeed`, in ms (scaled). @default 20 */
  readonly settleAfterMs?: number;
  /**
   * Settle at once and finish the first delivery attempt of every event before the create request is answered
   * (docs/design.md §9 scenario 13). @default false
   */
  readonly webhookBeforeResponse?: boolean;
  /** A success is announced by two events with different ids: `payment_intent.succeeded` and `charge.succeeded`. @default false */
  readonly twoEventIds?: boolean;
  /** After a success, refund the full amount: a `charge.refunded` event follows. @default false */
  readonly refundAfterSettle?: boolean;
  /** Extra copies of each genuine event, sent one after the other once it was delivered. @default 0 */
  readonly duplicateDeliveries?: number;
  /** Copies of each genuine event sent at the same time as its first attempt (1 = no parallel copy). @default 1 */
  readonly parallelDeliveries?: number;
  /** The events of one settlement are sent newest first (refund before success, charge before intent). @default false */
  readonly reorder?: boolean;
  /** Wait this long (real ms) before the first delivery attempt of each event. @default 0 */
  readonly webhookDelayMs?: number;
  /** The first attempt of each event is lost on the way (never reaches the target; retried on the schedule). @default false */
  readonly webhookDrop?: boolean;
  /** Before each genuine event, send one copy signed with a wrong secret (never retried). @default false */
  readonly forgedSignature?: boolean;
  /**
   * Before each genuine event, send one copy whose amount is doubled: `in-transit` keeps the original signature
   * (so it no longer matches), `resigned` is correctly signed under a new event id (an authentic event with a
   * foreign amount). Never retried. @default 'none'
   */
  readonly tamperedAmount?: AmountTamper;
}

/** A plan with every knob set. */
export type ResolvedPaymentPlan = { readonly [K in keyof PaymentPlan]-?: NonNullable<PaymentPlan[K]> };

/** The values used for knobs nobody set. */
export const DEFAULT_PAYMENT_PLAN: ResolvedPaymentPlan = Object.freeze({
  responseFault: 'none',
  responseDelayMs: 0,
  hangMs: 30_000,
  retryAfterSec: 1,
  declineCode: 'generic_decline',
  outcome: 'succeed',
  settleAfterMs: 20,
  webhookBeforeResponse: false,
  twoEventIds: false,
  refundAfterSettle: false,
  duplicateDeliveries: 0,
  parallelDeliveries: 1,
  reorder: false,
  webhookDelayMs: 0,
  webhookDrop: false,
  forgedSignature: false,
  tamperedAmount: 'none',
});

const RESPONSE_FAULTS: readonly ResponseFault[] = [
  'none',
  'drop-after-commit',
  'gateway-timeout-after-commit',
  'hang-after-commit',
  'hang-before-commit',
  '500-before-commit',
  '500-after-commit',
  '503-before-commit',
  '503-after-commit',
  'rate-limit',
];
const OUTCOMES: readonly PaymentOutcome[] = ['succeed', 'decline', 'requires_action', 'hold'];
const TAMPERS: readonly AmountTamper[] = ['none', 'in-transit', 'resigned'];
/** Upper bounds keep every loop and timer of the sandbox bounded. */
const MAX_MS = 600_000;
const MAX_COPIES = 50;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidOption(name, `must be one of ${allowed.join(', ')}`);
}

function intIn(value: unknown, min: number, max: number, name: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw new InvalidOption(name, `must be an integer from ${min} to ${max}`);
}

function bool(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new InvalidOption(name, 'must be true or false');
}

/**
 * Checks a plan that came from outside (a control request body, the `Sandbox-Plan` header, options) and returns
 * it with only the known fields. Limits: durations 0…600 000 ms, `retryAfterSec` 0…3600, `duplicateDeliveries` 0…50,
 * `parallelDeliveries` 1…50.
 * @throws {InvalidOption} a field of the wrong type or out of range, or an unknown field.
 */
export function checkPaymentPlan(value: unknown, name = 'plan'): PaymentPlan {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidOption(name, 'must be an object');
  }
  const input = value as Record<string, unknown>;
  const plan: { -readonly [K in keyof PaymentPlan]: PaymentPlan[K] } = {};
  for (const [key, field] of Object.entries(input)) {
    if (field === undefined) continue;
    const at = `${name}.${key}`;
    switch (key) {
      case 'responseFault':
        plan.responseFault = oneOf(field, RESPONSE_FAULTS, at);
        break;
      case 'responseDelayMs':
        plan.responseDelayMs = intIn(field, 0, MAX_MS, at);
        break;
      case 'hangMs':
        plan.hangMs = intIn(field, 0, MAX_MS, at);
        break;
      case 'retryAfterSec':
        plan.retryAfterSec = intIn(field, 0, 3_600, at);
        break;
      case 'declineCode':
        if (typeof field !== 'string' || !/^[a-z_]{1,40}$/.test(field)) {
          throw new InvalidOption(at, 'must be a decline code (lower-case letters and _)');
        }
        plan.declineCode = field;
        break;
      case 'webhookDelayMs':
        plan.webhookDelayMs = intIn(field, 0, MAX_MS, at);
        break;
      case 'webhookDrop':
        plan.webhookDrop = bool(field, at);
        break;
      case 'outcome':
        plan.outcome = oneOf(field, OUTCOMES, at);
        break;
      case 'settleAfterMs':
        plan.settleAfterMs = intIn(field, 0, MAX_MS, at);
        break;
      case 'webhookBeforeResponse':
        plan.webhookBeforeResponse = bool(field, at);
        break;
      case 'twoEventIds':
        plan.twoEventIds = bool(field, at);
        break;
      case 'refundAfterSettle':
        plan.refundAfterSettle = bool(field, at);
        break;
      case 'duplicateDeliveries':
        plan.duplicateDeliveries = intIn(field, 0, MAX_COPIES, at);
        break;
      case 'parallelDeliveries':
        plan.parallelDeliveries = intIn(field, 1, MAX_COPIES, at);
        break;
      case 'reorder':
        plan.reorder = bool(field, at);
        break;
      case 'forgedSignature':
        plan.forgedSignature = bool(field, at);
        break;
      case 'tamperedAmount':
        plan.tamperedAmount = oneOf(field, TAMPERS, at);
        break;
      default:
        throw new InvalidOption(at, 'is not a payment plan knob');
    }
  }
  return Object.freeze(plan);
}

/** `plan` over `base`: fields set in `plan` win. */
export function resolvePaymentPlan(base: ResolvedPaymentPlan, plan: PaymentPlan | undefined): ResolvedPaymentPlan {
  if (plan === undefined) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [key, field] of Object.entries(plan)) if (field !== undefined) out[key] = field;
  return Object.freeze(out) as ResolvedPaymentPlan;
}
