/**
 * `payonce replay` as a library: read captured webhook deliveries (JSON lines of headers + exact raw body, e.g.
 * exported from a provider dashboard), send them to a live service with duplication, parallelism and a seeded
 * shuffle, and report how it answered. Re-exported by `payonce/storm`. @see docs/replay.md.
 */
export type { Capture, CaptureExpectation } from './capture.js';
export { type CaptureRecord, captureLine } from './capture-line.js';
export { captureVerdict } from './capture-verdict.js';
export { InvalidCaptureFile } from './invalid-capture-file.js';
export { parseCaptures } from './parse-captures.js';
export { readCaptureFile } from './read-capture-file.js';
export { replay } from './replay.js';
export { ReplayFailed } from './replay-failed.js';
export {
  type ReplayOptions,
  type ResolvedReplayOptions,
  replayTarget,
  resolveReplayOptions,
} from './replay-options.js';
export type {
  AnswerCounts,
  CaptureReport,
  CaptureVerdict,
  DeliveryResult,
  ReplayReport,
  ReplayTotals,
} from './replay-report.js';
export { replaySummaryLine, replayTable } from './replay-table.js';
export { seededShuffle } from './seeded-shuffle.js';
export { NOT_RESENT_HEADERS } from './send-delivery.js';
