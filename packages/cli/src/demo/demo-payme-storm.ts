import type { PaymeStormReport } from '@payonce/storm/internal/payme/run-payme-storm.js';
import type { CliIo } from '../cli-io.js';
import type { loadPaymeStorm } from '../storm-peer.js';
import { paymePlanLine, progressLine } from '../storm-progress.js';

/** What {@link runDemoPaymeStorm} needs from the demo. */
export interface DemoPaymeStormInput {
  /** The Payme storm, as `loadPaymeStorm` gives it. */
  readonly payme: Awaited<ReturnType<typeof loadPaymeStorm>>;
  /** Base URL of the service (with replicas, the first one): Payme calls `<service>/payme`. */
  readonly service: string;
  /** The cashbox key the service children were started with (never printed). */
  readonly paymeKey: string;
  /** The service's admin token (the job re-run scenario uses `/admin/api`). */
  readonly adminToken: string;
  /** Budget of each scenario, ms. @default the Payme storm's */
  readonly timeoutMs?: number;
}

const CONCURRENCY = 4;

/**
 * The demo's Payme storm (docs/storm.md "Payme storm"): every Payme scenario against `POST <service>/payme`, with a
 * progress line per scenario, then the table and the one-line summary. Its crash scenario kills the service process
 * by the pid of `<service>/healthz`, as the Stripe storm's scenario 12 does; the demo's supervisor restarts it.
 * @throws {StormTargetUnavailable} `/payme` did not answer, or refused the key (a database an earlier run seeded
 *   with its own key keeps that key: docs/service.md "Payme, Click and Uzum").
 * @returns the report; `passed` is false when a Payme scenario failed.
 */
export async function runDemoPaymeStorm(io: CliIo, input: DemoPaymeStormInput): Promise<PaymeStormReport> {
  const { payme } = input;
  const target = payme.servicePaymeTarget({
    service: input.service,
    key: input.paymeKey,
    adminToken: input.adminToken,
  });
  try {
    const report = await payme.runPaymeStorm({
      target,
      timeoutMs: input.timeoutMs,
      concurrency: CONCURRENCY,
      onProgress: (event) => {
        if (event.kind === 'started' && event.index === 1) {
          io.out(paymePlanLine(event.total, CONCURRENCY, payme.aloneIds));
        }
        if (event.kind === 'finished') io.out(progressLine(event));
      },
    });
    io.out('');
    for (const line of payme.formatPaymeStormTable(report).split('\n')) io.out(line);
    io.out('');
    io.out(payme.paymeStormSummary(report));
    return report;
  } finally {
    await target.close();
  }
}
