import type { HttpAnswer } from '../storm-http.js';
import type { AppOrderAnswer, AppPaymentAnswer } from './storm-app-adapter.js';

/** The order id of a create answer, or `null`. */
export const orderIdOf = (answer: AppOrderAnswer): string | null => answer.orderId;

/** The attempt id a payment answer names, or `null` (already paid, error). */
export const attemptIdOf = (answer: AppPaymentAnswer): string | null => answer.attemptId;

/** The payment answer's `outcome` (`created`, `existing`, `already-paid`), or `null`. */
export const outcomeOf = (answer: Partial<Pick<AppPaymentAnswer, 'outcome'>>): string | null => answer.outcome ?? null;

/** The named attempt's `status` or `providerPaymentId`, or `null` when the app did not say. */
export function attemptFieldOf(
  answer: Partial<Pick<AppPaymentAnswer, 'attemptStatus' | 'providerPaymentId'>>,
  field: 'status' | 'providerPaymentId',
): string | null {
  return (field === 'status' ? answer.attemptStatus : answer.providerPaymentId) ?? null;
}

/** An HTTP answer that may be a payment answer (for notes). */
export type AnyAppAnswer = HttpAnswer & Partial<Pick<AppPaymentAnswer, 'outcome' | 'attemptStatus'>>;
