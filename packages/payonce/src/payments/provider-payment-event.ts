import type { RequestKey } from '../core/request-key.js';
import type { ProviderPaymentStatus } from './payment-provider.js';

/**
 * The payment status an event reports: a provider payment status, or `refunded` (a refund of a success: full, or
 * partial when `refundedMinor` is below the attempt's amount).
 */
export type PaymentEventStatus = ProviderPaymentStatus | 'refunded';

/** Every `PaymentEventStatus`. */
export const PAYMENT_EVENT_STATUSES: readonly PaymentEventStatus[] = Object.freeze([
  'pending',
  'requires_action',
  'succeeded',
  'failed',
  'cancelled',
  'refunded',
]);

/**
 * Input of `applyProviderEvent`. The fields are those of the webhook intake's `ProviderEvent`
 * (src/webhooks/providers/provider-event.ts), same names and types, plus `status`, which the application adds: its
 * mapping of the provider's event type (`payment_intent.succeeded` → `succeeded`, `charge.refunded` → `refunded`),
 * so a handler passes `{ ...event, status }` (the intake's `ProviderEvent` has no `status`). Money in integer minor
 * units; times epoch ms UTC.
 * @see docs/design.md §5–6.
 */
export interface ProviderPaymentEvent {
  /** Provider name; must equal the `PaymentProvider.name` the attempt was created with. */
  readonly provider: string;
  /** The receipt key (provider, event id) recorded once; `null` (read-only queries) is rejected. */
  readonly key: RequestKey | null;
  readonly eventType: string;
  /** What the event says about the payment. */
  readonly status: PaymentEventStatus;
  /** The provider's payment id, or `null`. */
  readonly paymentId: string | null;
  /** Integer minor units; required for `succeeded` and `refunded`. */
  readonly amountMinor: number | null;
  readonly currency: string | null;
  /** The attempt id sent as merchant reference, echoed by the provider; or `null`. */
  readonly merchantReference: string | null;
  readonly occurredAtMs: number | null;
  /** The order id if the provider echoes it (metadata); checked against the attempt's order. */
  readonly orderId?: string | null;
  /**
   * For `refunded`: the payment's CUMULATIVE refunded amount so far, integer minor units (Stripe's charge
   * `amount_refunded`, which Stripe sends with every `charge.refunded`, partial refunds included). Below the
   * attempt's amount the refund is partial: journaled, the order stays paid (and is fulfilled); at the amount the
   * order is refunded; above it the order is refunded and an alert raised. `null` or absent: the whole amount
   * (a provider whose refund event always means a full refund).
   */
  readonly refundedMinor?: number | null;
}
