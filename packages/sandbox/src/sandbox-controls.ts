import type { RequestRecord } from './api-request.js';
import type { FaultRecord } from './faults/fault-ledger.js';
import type { FaultRuleInput } from './faults/fault-rules.js';
import type { PaymentPlan } from './payment-plan.js';
import type { SandboxEvent } from './sandbox-event.js';
import type { SandboxCharge, SandboxPayment, SandboxRefund } from './sandbox-payment.js';
import type { SentDelivery } from './sent-delivery.js';
import type { RegisteredEndpoint } from './webhook-endpoints.js';
import type { SandboxSigning, SandboxSigningScheme } from './webhook-signer.js';

/**
 * Everything the sandbox did, for assertions (`GET /_sandbox/ledger`): PaymentIntents, charges, refunds, events,
 * webhook deliveries, injected faults (each with the request id it struck) and the API requests answered.
 */
export interface SandboxLedger {
  readonly payments: readonly SandboxPayment[];
  readonly charges: readonly SandboxCharge[];
  readonly refunds: readonly SandboxRefund[];
  readonly events: readonly {
    readonly id: string;
    readonly type: string;
    readonly paymentId: string;
    readonly requestId: string | null;
  }[];
  readonly deliveries: readonly SentDelivery[];
  readonly faults: readonly FaultRecord[];
  readonly requests: readonly RequestRecord[];
}

/** What the sandbox knows about one merchant reference: the proof of "charged at most once". */
export interface ChargeLedger {
  readonly merchantReference: string;
  /** How many payments for this reference succeeded (a charge was made): a count, not the charges. */
  readonly chargeCount: number;
  /** How many refunds were made. */
  readonly refundCount: number;
  /** Every payment created with this reference, oldest first. */
  readonly paymentIds: readonly string[];
}

/**
 * What the sandbox knows about one order id (`metadata.order_id`): catches a service that charges one order under
 * two merchant references (two attempts, two tabs, a double click).
 */
export interface OrderLedger {
  readonly orderId: string;
  /** How many payments for this order succeeded, across all merchant references: a count, not the charges. */
  readonly chargeCount: number;
  /** How many refunds were made. */
  readonly refundCount: number;
  /** Every payment created for this order, oldest first. */
  readonly paymentIds: readonly string[];
  /** The distinct merchant references those payments carried. */
  readonly merchantReferences: readonly string[];
  /** What each succeeded charge of the order took, oldest first (one entry per charge counted in `chargeCount`). */
  readonly charges: readonly OrderCharge[];
}

/** One succeeded charge of an order: which payment made it and how much it took, in the payment's currency. */
export interface OrderCharge {
  readonly paymentId: string;
  readonly chargeId: string;
  /** Integer minor units: the captured amount, or the authorised one while a manual capture is pending. */
  readonly amountMinor: number;
  /** ISO-4217, upper case. */
  readonly currency: string;
}

/** Which create requests a plan applies to; no field means "the next create request, whatever it is". */
export interface PlanMatch {
  readonly orderId?: string;
  readonly merchantReference?: string;
}

/** Filter of `events()` and `deliveries()`; fields combine with AND. */
export interface SandboxLogFilter {
  readonly merchantReference?: string;
  readonly paymentId?: string;
  readonly eventId?: string;
}

/**
 * The sandbox's test handle (also served over HTTP under `/_sandbox/…`, see docs/sandbox.md). Nothing here
 * goes through fault injection.
 */
export interface SandboxControls {
  /** Sets or clears the webhook target (loopback `http:` only). @throws {InvalidOption} another URL. */
  setWebhookUrl(url: string | null): void;
  /** The signing scheme and secret used for new events. */
  signing(): SandboxSigning;
  /** Switches the scheme for new events; a missing secret gets a fresh random one. Returns the new signing. */
  setSigning(signing: {
    scheme: SandboxSigningScheme;
    secret?: string;
    previousSecrets?: readonly string[];
  }): SandboxSigning;
  /** Replaces the run-level knobs (over the built-in defaults). @throws {InvalidOption} a bad plan. */
  setDefaults(plan: PaymentPlan): void;
  /**
   * Applies `plan` to the next `times` create requests matching `match` (replays included: a lost answer is
   * lost again only while the plan has uses left). Plans are used in the order they were added.
   * @throws {InvalidOption} a bad plan or `times` outside 1…1000.
   */
  plan(match: PlanMatch, plan: PaymentPlan, times?: number): void;
  /** Succeeded charges, refunds and payments of a merchant reference (zeros when unknown). */
  ledger(merchantReference: string): ChargeLedger;
  /** Charges, refunds, payments and merchant references of an order id (zeros when unknown). */
  orderLedger(orderId: string): OrderLedger;
  /** Shorthand for `ledger(merchantReference).chargeCount`. */
  charges(merchantReference: string): number;
  /** Number of create requests received, replays and rejected ones included. */
  createRequests(): number;
  payment(paymentId: string): SandboxPayment | undefined;
  payments(): readonly SandboxPayment[];
  /**
   * Ends a `processing` or `requires_action` payment as `succeed` (a charge, `payment_intent.succeeded`) or
   * `decline` (`payment_intent.payment_failed`); resolves once the first delivery attempts finished. A payment
   * in another state is returned unchanged. @throws {Error} unknown payment id.
   */
  settle(paymentId: string, outcome: 'succeed' | 'decline'): Promise<SandboxPayment>;
  /** Fully refunds a succeeded payment (`charge.refunded`); others are returned unchanged. @throws {Error} unknown id. */
  refund(paymentId: string): Promise<SandboxPayment>;
  /** Genuine events emitted, oldest first. */
  events(filter?: SandboxLogFilter): readonly SandboxEvent[];
  /** The delivery log, oldest first. */
  deliveries(filter?: SandboxLogFilter): readonly SentDelivery[];
  /**
   * Sends `copies` more copies of a genuine event (fresh signatures, same id and body), `parallel` at a time
   * (docs/design.md §9 scenario 16). @throws {Error} unknown event id; {InvalidOption} counts outside 1…50.
   */
  resend(eventId: string, copies: number, parallel?: number): Promise<readonly SentDelivery[]>;
  /** Waits until no settlement or delivery is pending; false when `timeoutMs` passed first. @default 10_000 */
  idle(timeoutMs?: number): Promise<boolean>;
  /** The whole ledger (also `GET /_sandbox/ledger`). */
  ledgerSnapshot(): SandboxLedger;
  /** Injected faults, oldest first, optionally of one request id. */
  faults(requestId?: string): readonly FaultRecord[];
  /** Adds a fault rule (also `POST /_sandbox/fault-rules`). @throws {InvalidOption} a bad rule. */
  addFaultRule(rule: FaultRuleInput): void;
  /** Removes every fault rule; with `seed`, restarts the random draws. */
  clearFaultRules(seed?: number): void;
  /**
   * Restarts the fault rules' random draws with `seed`, keeping the rules (also `POST /_sandbox/seed`): the storm
   * seeds it from its run's seed, so `--seed S` replays the same injected faults. @throws {InvalidOption} not an
   * integer from 0 to 2^32 - 1.
   */
  reseedFaults(seed: number): void;
  /** Registered webhook endpoints (with their secrets). */
  endpoints(): readonly RegisteredEndpoint[];
  /** Moves the sandbox clock forward (idempotency keys expire after 24 h of it). @throws {InvalidOption} < 0. */
  advanceClock(ms: number): void;
  /** The sandbox clock, ms since the epoch (real time plus every `advanceClock`). */
  nowMs(): number;
}
