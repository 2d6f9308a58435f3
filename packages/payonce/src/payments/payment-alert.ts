import type { PaymentReport } from './payment-report.js';

/** Something a human should look at, reported after the transaction committed. */
export interface PaymentAlert {
  readonly provider: string;
  readonly eventId: string;
  readonly attemptId: string | null;
  readonly orderId: string | null;
  readonly reason: string;
}

/**
 * What `alertOf` reads of an applied report (`AppliedReport` has these fields): declared here, not imported, so the
 * alert type the payments context names does not depend on the code that applies reports.
 */
export interface AlertSource {
  readonly decision: string;
  readonly reason: string | null;
  readonly attemptId: string | null;
  readonly orderId: string | null;
}

/** The alert of a report whose application asked for one (a mismatch or an anomaly). */
export function alertOf(report: PaymentReport, applied: AlertSource): PaymentAlert {
  return Object.freeze({
    provider: report.provider,
    eventId: report.eventId,
    attemptId: applied.attemptId,
    orderId: applied.orderId,
    reason: applied.reason ?? applied.decision,
  });
}
