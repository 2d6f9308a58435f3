/** What a capture says its delivery should get: a 2xx acknowledgement, or a refusal (4xx). */
export type CaptureExpectation = 'accepted' | 'rejected';

/**
 * One captured webhook delivery, as read from a capture file (JSON lines, see `docs/replay.md`): what a
 * provider dashboard export or a proxy capture gives, the headers and the exact body bytes.
 */
export interface Capture {
  /** The capture's `id`, or `line-<n>` when the line gave none. Unique within a file. */
  readonly id: string;
  /** 1-based line number in the capture file (0 for captures not read from a file). */
  readonly line: number;
  /** HTTP method, upper case. @default 'POST' */
  readonly method: string;
  /** Path (and query) appended to the target URL, starting with `/`, e.g. `/webhooks/stripe`. */
  readonly path: string;
  /** Request headers as captured, names as given (HTTP names are case-insensitive; no two differ only by case). */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body bytes (`body` encoded as UTF-8, or `bodyBase64` decoded). */
  readonly body: Uint8Array;
  /** What the delivery should get, or `null` when the capture does not say (the answer is reported, not judged). */
  readonly expect: CaptureExpectation | null;
  /** Free text carried into the report, or `null`. */
  readonly note: string | null;
}
