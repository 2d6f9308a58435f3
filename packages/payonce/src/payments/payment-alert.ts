import type { AppliedReport } from './apply-report.js';
import type { PaymentReport } from './payment-report.js';

/** Something a human should look at, reported after the transaction committed. */
export interface PaymentAlert {
  readonly provider: string;
  readonly eventId: string;
  readonly attemptId: string | null;
  readonly orderId: string | null;
  readonly reason: string;
}

/** The alert of a report whose application asked for one (a mismatch or an anomaly). */
export function alertOf(report: PaymentReport, applied: AppliedReport): PaymentAlert {
  return Object.freeze({
    provider: report.provider,
    eventId: report.eventId,
    attemptId: applied.attemptId,
    orderId: applied.orderId,
    reason: applied.reason ?? applied.decision,
  });
}
