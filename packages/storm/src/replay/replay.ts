import { Agent } from 'undici';
import type { Capture } from './capture.js';
import { captureVerdict } from './capture-verdict.js';
import { type ReplayOptions, resolveReplayOptions } from './replay-options.js';
import type { AnswerCounts, CaptureReport, DeliveryResult, ReplayReport, ReplayTotals } from './replay-report.js';
import { seededShuffle } from './seeded-shuffle.js';
import { sendDelivery } from './send-delivery.js';

interface Planned {
  readonly capture: Capture;
  readonly copy: number;
}

/** The capture's URL: the target's path (without a trailing `/`) followed by the capture's path and query. */
function urlOf(target: URL, capture: Capture): URL {
  const base = target.pathname.replace(/\/+$/, '');
  return new URL(`${base}${capture.path}`, target.origin);
}

function countAnswers(results: readonly DeliveryResult[]): AnswerCounts {
  let success = 0;
  let clientError = 0;
  let serverError = 0;
  let other = 0;
  let failed = 0;
  for (const { status } of results) {
    if (status === null) failed++;
    else if (status >= 200 && status < 300) success++;
    else if (status >= 400 && status < 500) clientError++;
    else if (status >= 500) serverError++;
    else other++;
  }
  return { success, clientError, serverError, other, failed };
}

function captureReport(capture: Capture, results: readonly DeliveryResult[]): CaptureReport {
  const byCopy = [...results].sort((a, b) => a.copy - b.copy);
  const answers = new Set(byCopy.filter((r) => r.status !== null).map((r) => `${r.status} ${r.bodySha256}`));
  const codes = new Set(byCopy.map((r) => r.problemCode).filter((c): c is string => c !== null));
  const { verdict, reason } = captureVerdict(capture.expect, byCopy);
  return {
    id: capture.id,
    line: capture.line,
    method: capture.method,
    path: capture.path,
    expect: capture.expect,
    note: capture.note,
    statuses: byCopy.map((r) => r.status),
    counts: countAnswers(byCopy),
    replayed: byCopy.filter((r) => r.replayed).length,
    distinctAnswers: answers.size,
    problemCodes: [...codes].sort(),
    verdict,
    reason,
  };
}

/**
 * Replays captured deliveries against a live service: every capture is sent `copies` times to `target` + its
 * path with its exact body bytes and captured headers (connection-level ones aside, see `NOT_RESENT_HEADERS`),
 * `parallel` requests at a time, in file order (copies in a row) or `shuffle`d by `seed` (reproducible), each
 * request limited to `timeoutMs`. Every answer is recorded: status, `Idempotent-Replayed`, problem code, body
 * digest. Never throws for a non-2xx answer, and a connection error or timeout is reported per delivery.
 * @returns per capture: statuses in copy order, counts by class, replays, distinct answers and the verdict against
 * its `expect` (see `captureVerdict`); per delivery in send order; totals; `ok` when nothing contradicts.
 * @throws {InvalidOption} a bad target URL, no capture, or copies/parallel/timeoutMs/seed out of range; thrown
 * before anything is sent.
 * @see docs/design.md §5 (what the intake answers), §9 scenarios 8 and 16 (duplicates in a row and in parallel).
 * @example
 * const report = await replay({ target: 'http://127.0.0.1:3000', captures: await readCaptureFile('captures.jsonl'),
 *   copies: 3, parallel: 8, shuffle: true, seed: 'ci' });
 * if (!report.ok) console.error(report.captures.filter((c) => c.verdict === 'contradicted'));
 */
export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const resolved = resolveReplayOptions(options);
  const { target, captures, copies, parallel, timeoutMs, seed, onDelivery } = resolved;
  const planned: Planned[] = [];
  for (const capture of captures) for (let copy = 1; copy <= copies; copy++) planned.push({ capture, copy });
  const order = seed === null ? planned : seededShuffle(planned, seed);

  const startedAtMs = Date.now();
  const started = performance.now();
  const agent = new Agent({ connections: parallel, pipelining: 1, keepAliveTimeout: 1_000 });
  const results: DeliveryResult[] = new Array(order.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < order.length) {
      const sequence = next++;
      const { capture, copy } = order[sequence]!;
      const sent = await sendDelivery(agent, urlOf(target, capture), capture, timeoutMs);
      const result: DeliveryResult = Object.freeze({ captureId: capture.id, copy, sequence, ...sent });
      results[sequence] = result;
      done++;
      if (onDelivery !== null) {
        try {
          onDelivery(result, done, order.length);
        } catch {
          // progress output must never stop a run
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(parallel, order.length) }, worker));
  } finally {
    await agent.close().catch(() => undefined);
  }

  const byCapture = new Map<Capture, DeliveryResult[]>(captures.map((c) => [c, []]));
  const idToCapture = new Map(captures.map((c) => [c.id, c] as const));
  for (const result of results) byCapture.get(idToCapture.get(result.captureId)!)!.push(result);
  const reports = captures.map((capture) => captureReport(capture, byCapture.get(capture)!));
  const answers = countAnswers(results);
  const totals: ReplayTotals = {
    captures: captures.length,
    deliveries: results.length,
    ...answers,
    replayed: results.filter((r) => r.replayed).length,
    matched: reports.filter((r) => r.verdict === 'matched').length,
    contradicted: reports.filter((r) => r.verdict === 'contradicted').length,
    unchecked: reports.filter((r) => r.verdict === 'unchecked').length,
  };
  return {
    target: target.href,
    copies,
    parallel,
    shuffled: resolved.shuffle,
    seed,
    timeoutMs,
    startedAtMs,
    durationMs: Math.round(performance.now() - started),
    captures: reports,
    deliveries: results,
    totals,
    ok: totals.contradicted === 0,
  };
}
