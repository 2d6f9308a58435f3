/**
 * Waits, before a full run's first row, for the work that ran before it to die down: a test suite or a build leaves
 * PostgreSQL's autovacuum, MariaDB's purge and page flushing busy for a minute after it ends, and the first row
 * (`postgres-batched-c1`) read 0.86× in a run that started at load average 4.9, right after a test suite, and 1.05× in
 * one that started at 1.15 (notes/host.md). Polls the 1-minute load average every `pollMs` until it is below `below` or
 * `maxMs` has passed; never fails (a machine that stays busy is measured as it is, and the log says so).
 */
export interface QuietStart {
  /** The 1-minute load average (`os.loadavg()[0]`). */
  readonly load: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: (line: string) => void;
  /** Load average to wait for (on this 2-core machine an idle host with its five servers reads 0.1–1). */
  readonly below: number;
  /** Longest wait, in ms. */
  readonly maxMs: number;
  /** Time between two looks, in ms. */
  readonly pollMs: number;
}

/** Returns the ms waited (0 when the machine was already quiet). */
export async function waitForQuietStart(options: QuietStart): Promise<number> {
  const { load, sleep, log, below, maxMs, pollMs } = options;
  const first = load();
  if (first < below) return 0;
  let waited = 0;
  while (waited < maxMs) {
    await sleep(pollMs);
    waited += pollMs;
    if (load() < below) break;
  }
  const now = load();
  const verdict = now < below ? 'quiet' : `still busy, starting anyway after ${maxMs / 1_000} s`;
  log(
    `load average ${first.toFixed(2)} → ${now.toFixed(2)} after ${waited / 1_000} s (${verdict}; waited for < ${below})`,
  );
  return waited;
}
