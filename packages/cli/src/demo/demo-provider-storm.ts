import type { CliIo } from '../cli-io.js';
import type { CommandReport, LoadedProviderStorm } from '../commands/storm-provider.js';
import { progressLine, providerPlanLine } from '../storm-progress.js';

const CONCURRENCY = 4;

/**
 * One provider storm of the demo (docs/storm.md "Payme storm", "Click storm", "Uzum storm"): every scenario against
 * the service, `CONCURRENCY` at a time (the crash alone at the end), a progress line per finished scenario, then
 * the table and the one-line summary. Its crash scenario kills the service process by the pid of `/healthz`, as
 * the Stripe storm's scenario 12 does; the demo's supervisor restarts it.
 * @param provider `Payme`, `Click`, `Uzum`: for the plan line.
 * @param timeoutMs budget of each scenario, ms (the storm's default when absent).
 * @throws {StormTargetUnavailable} the endpoint did not answer, or refused the credentials.
 * @returns the report; `passed` is false when a scenario failed.
 */
export async function runDemoProviderStorm<T extends { close(): Promise<void> }, R extends CommandReport>(
  io: CliIo,
  provider: string,
  storm: LoadedProviderStorm<T, R>,
  timeoutMs: number | undefined,
): Promise<R> {
  const target = storm.target(undefined);
  try {
    const report = await storm.run(target, {
      timeoutMs,
      concurrency: CONCURRENCY,
      onProgress: (event) => {
        if (event.kind === 'started' && event.index === 1) {
          io.out(providerPlanLine(provider, event.total, CONCURRENCY, storm.aloneIds));
        }
        if (event.kind === 'finished') io.out(progressLine(event));
      },
    });
    io.out('');
    for (const line of storm.table(report).split('\n')) io.out(line);
    io.out('');
    io.out(storm.summary(report));
    return report;
  } finally {
    await target.close();
  }
}
