import type { CaptureExpectation } from './capture.js';

/** One HTTP request of a replay run and how the target answered it. */
export interface DeliveryResult {
  /** The capture this delivery is a copy of. */
  readonly captureId: string;
  /** Which copy, 1-based (1..copies). */
  readonly copy: number;
  /** Position in the send order, 0-based (shuffled runs send copies of different captures interleaved). */
  readonly sequence: number;
  /** HTTP status, or `null` when no answer arrived (see `error`). */
  readonly status: number | null;
  /** True when the answer carried `Idempotent-Replayed: true` (an idempotency layer replayed a stored answer). */
  readonly replayed: boolean;
  /** The `code` member of an `application/problem+json` answer (`WEBHOOK_SIGNATURE_INVALID`…), else `null`. */
  readonly problemCode: string | null;
  /** SHA-256 (hex) of the answer's body bytes, `null` without an answer: equal digests are byte-identical answers. */
  readonly bodySha256: string | null;
  /** Why no answer arrived (`ECONNREFUSED: …`, `timeout after 10000 ms`), else `null`. */
  readonly error: string | null;
  /** From sending the request to the end of the answer's body, milliseconds. */
  readonly durationMs: number;
}

/** Answers counted by class. */
export interface AnswerCounts {
  /** 2xx answers. */
  readonly success: number;
  /** 4xx answers. */
  readonly clientError: number;
  /** 5xx answers. */
  readonly serverError: number;
  /** 1xx and 3xx answers. */
  readonly other: number;
  /** Deliveries without an answer (connection refused or reset, timeout). */
  readonly failed: number;
}

/**
 * How the answers to a capture's copies relate to its `expect`: `matched`, `contradicted` (the run fails), or
 * `unchecked` when the capture has no `expect`. See `captureVerdict` for the rule.
 */
export type CaptureVerdict = 'matched' | 'contradicted' | 'unchecked';

/** What happened to one capture's copies. */
export interface CaptureReport {
  readonly id: string;
  /** Line of the capture file (0 when the capture did not come from a file). */
  readonly line: number;
  readonly method: string;
  readonly path: string;
  readonly expect: CaptureExpectation | null;
  readonly note: string | null;
  /** Status of each copy in copy order (`null`: no answer). */
  readonly statuses: readonly (number | null)[];
  readonly counts: AnswerCounts;
  /** Copies answered with `Idempotent-Replayed: true`. */
  readonly replayed: number;
  /** Number of different answers (status + body bytes) among the copies that got one: 1 when every copy got the same. */
  readonly distinctAnswers: number;
  /** The distinct problem codes of the answers, sorted. */
  readonly problemCodes: readonly string[];
  readonly verdict: CaptureVerdict;
  /** Why the verdict is what it is, for people (`3× 200`, `expected rejected, got 200 ×3`). */
  readonly reason: string;
}

/** Sums over a whole run. */
export interface ReplayTotals extends AnswerCounts {
  readonly captures: number;
  readonly deliveries: number;
  readonly replayed: number;
  readonly matched: number;
  readonly contradicted: number;
  readonly unchecked: number;
}

/** The result of `replay()`: per capture, per delivery, and totals. Plain JSON (written by `--report`). */
export interface ReplayReport {
  /** The target base URL the capture paths were appended to. */
  readonly target: string;
  readonly copies: number;
  readonly parallel: number;
  readonly shuffled: boolean;
  /** The seed of the shuffle (reuse it to repeat the order), `null` when not shuffled. */
  readonly seed: string | null;
  readonly timeoutMs: number;
  /** Start of the run, epoch ms. */
  readonly startedAtMs: number;
  readonly durationMs: number;
  /** In capture-file order. */
  readonly captures: readonly CaptureReport[];
  /** In send order. */
  readonly deliveries: readonly DeliveryResult[];
  readonly totals: ReplayTotals;
  /** True when no capture's answers contradict its `expect`. */
  readonly ok: boolean;
}
