import type { ProblemCatalogue } from '../problem/problem-details.js';
import type { WebhookErrorCode } from './verify/webhook-error.js';

/**
 * Codes of the problems that exist only at the webhook edge (no error class behind them): body too large (413),
 * signature that cannot be parsed (400), signature missing, wrong or outside its window (401), handler threw (500:
 * a 5xx makes every provider redeliver). Their statuses are in `WEBHOOK_PROBLEMS`.
 * @see docs/design.md §5; RFC 9110 §15.5.14; Stripe "Return a 2xx status code quickly"; Standard
 *   Webhooks "Retry schedule".
 */
export type WebhookEdgeCode =
  | 'WEBHOOK_BODY_TOO_LARGE'
  | 'WEBHOOK_SIGNATURE_MALFORMED'
  | 'WEBHOOK_SIGNATURE_INVALID'
  | 'WEBHOOK_REFUSALS_LIMITED'
  | 'WEBHOOK_HANDLER_FAILED';

/** The core's codes a delivery can be refused with (its receipt claim): duplicates, races and an unreachable store. */
export type WebhookReceiptCode =
  | 'REQUEST_IN_PROGRESS'
  | 'PAYLOAD_MISMATCH'
  | 'CLAIM_LOST'
  | 'STORE_UNAVAILABLE'
  | 'STORE_SCHEMA_MISSING'
  | 'RECEIPT_CORRUPTED';

/** Every code the webhook intake answers with. */
export type WebhookProblemCode = WebhookEdgeCode | WebhookErrorCode | WebhookReceiptCode;

/**
 * The webhook intake's problem table: status and title of every code it answers, in the words of a provider's
 * delivery (a webhook has no `Idempotency-Key`: its receipt key is the provider's event id).
 * - `WEBHOOK_BODY_TOO_LARGE` → 413; `WEBHOOK_SIGNATURE_MALFORMED`, `MALFORMED_WEBHOOK_PAYLOAD` → 400;
 *   `WEBHOOK_SIGNATURE_INVALID` → 401; `WEBHOOK_REFUSALS_LIMITED` → 429 with `Retry-After` (a client past its
 *   `refusalLimit` of unauthenticated deliveries, RFC 6585 §4); `WEBHOOK_HANDLER_FAILED` → 500 (so the provider redelivers);
 *   `RAW_BODY_REQUIRED`, `INVALID_VERIFY_INPUT` → 500 (integration bug).
 * - receipt claim: `REQUEST_IN_PROGRESS` → 409 with `Retry-After`; `CLAIM_LOST` → 409; `PAYLOAD_MISMATCH` → 422;
 *   `STORE_UNAVAILABLE` → 503 (the provider retries each); `STORE_SCHEMA_MISSING` → 503 too (payonce's tables are
 *   missing: the provider retries while an operator migrates); `RECEIPT_CORRUPTED` → 500 (the event's stored receipt
 *   lost its fingerprint: an operator must repair it; the provider keeps retrying meanwhile).
 * @see docs/errors.md; docs/webhooks.md.
 */
export const WEBHOOK_PROBLEMS = Object.freeze({
  WEBHOOK_BODY_TOO_LARGE: { status: 413, title: 'Webhook body too large' },
  WEBHOOK_SIGNATURE_MALFORMED: { status: 400, title: 'Webhook signature is malformed' },
  WEBHOOK_SIGNATURE_INVALID: { status: 401, title: 'Webhook signature is invalid' },
  WEBHOOK_REFUSALS_LIMITED: { status: 429, title: 'Too many refused webhook deliveries' },
  WEBHOOK_HANDLER_FAILED: { status: 500, title: 'Webhook handler failed' },
  MALFORMED_WEBHOOK_PAYLOAD: { status: 400, title: 'Malformed webhook payload' },
  RAW_BODY_REQUIRED: { status: 500, title: 'Server misconfiguration' },
  INVALID_VERIFY_INPUT: { status: 500, title: 'Server misconfiguration' },
  REQUEST_IN_PROGRESS: { status: 409, title: 'This event is still being processed' },
  PAYLOAD_MISMATCH: { status: 422, title: 'Event id reused with a different body' },
  CLAIM_LOST: { status: 409, title: 'The delivery lost its claim on the event' },
  STORE_UNAVAILABLE: { status: 503, title: 'Receipt store unavailable' },
  STORE_SCHEMA_MISSING: { status: 503, title: 'Receipt store is not migrated' },
  RECEIPT_CORRUPTED: { status: 500, title: 'Stored receipt is corrupted' },
}) satisfies ProblemCatalogue<WebhookProblemCode>;
