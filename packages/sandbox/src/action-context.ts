import type { PaymentPlan } from './payment-plan.js';

/** Who asked for an action, and the fault knobs in effect for it. */
export interface ActionContext {
  /** `Request-Id` of the API request, `null` for a control call. */
  readonly requestId: string | null;
  readonly idempotencyKey: string | null;
  /** Knobs set for this request (header, rules, a matched plan); they override the payment's own. */
  readonly explicit: PaymentPlan;
  /** What set `explicit`, for the fault ledger (`header`, `rule:1`, `plan`…). */
  readonly source: string;
  readonly method: string | null;
  readonly path: string | null;
}

/** A control call's context: no request, no faults. */
export const CONTROL_CONTEXT: ActionContext = Object.freeze({
  requestId: null,
  idempotencyKey: null,
  explicit: Object.freeze({}),
  source: 'control',
  method: null,
  path: null,
});
