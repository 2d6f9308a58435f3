import type { SandboxSigningScheme } from './webhook-signer.js';

/**
 * Why a request was sent:
 * - `attempt`: an at-least-once attempt of a genuine event (numbered by `attempt`);
 * - `parallel-copy`: a copy sent at the same time as attempt 1 (`parallelDeliveries`);
 * - `duplicate`: a copy sent after the event was delivered (`duplicateDeliveries`);
 * - `resend`: a copy asked for by `controls.resend`;
 * - `forged-signature`: signed with a wrong secret; the target must reject it;
 * - `tampered-in-transit`: amount changed after signing; the target must reject it;
 * - `tampered-resigned`: correctly signed, another event id, amount doubled; the target must not apply it.
 */
export type DeliveryKind =
  | 'attempt'
  | 'parallel-copy'
  | 'duplicate'
  | 'resend'
  | 'forged-signature'
  | 'tampered-in-transit'
  | 'tampered-resigned';

/** One webhook request the sandbox sent and what the target answered (the delivery log, docs/design.md §8). */
export interface SentDelivery {
  /** Position in the log, from 1. */
  readonly seq: number;
  /** The id this request carried (for `tampered-resigned`, the forged event's own id). */
  readonly eventId: string;
  /** The genuine event it was derived from. */
  readonly sourceEventId: string;
  readonly eventType: string;
  readonly paymentId: string;
  readonly merchantReference: string | null;
  /** The webhook endpoint it went to: `we_…`, or `default` for the sandbox's own target. */
  readonly endpointId: string;
  readonly kind: DeliveryKind;
  /** Attempt number for `attempt` and `parallel-copy` (from 1); copy number for the other kinds. */
  readonly attempt: number;
  readonly scheme: SandboxSigningScheme;
  /** Target URL, or `null` when none was configured (the attempt then fails and is retried). */
  readonly url: string | null;
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** The exact body sent. */
  readonly requestBody: string;
  /** When the request started and when it ended (answer, error or timeout), ms since the epoch. */
  readonly sentAtMs: number;
  readonly finishedAtMs: number;
  /** HTTP status of the answer; `null` when there was none (connection error, timeout, no target). */
  readonly status: number | null;
  /** First 2 000 characters of the answer body. */
  readonly responseBody: string;
  /** Why there was no answer (a connection error, a timeout, the `webhook-drop` fault), else `null`. */
  readonly error: string | null;
}
