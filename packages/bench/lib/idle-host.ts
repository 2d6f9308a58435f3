/**
 * Waits, before each target of a run, until the host's CPUs are idle: what a target leaves running after its last
 * side exits (PostgreSQL's autovacuum and checkpointer after the storm and c256 rows, MariaDB's purge and page
 * flushing) would otherwise land on the next target's first pairs. The one-caller rows measure commit latency and
 * come right after such rows (`mysql-batched-c1` follows `postgres-batched-storm`); `mysql-batched-c1` read 0.86×
 * in a run that reached it at load average 4.1 (notes/host.md). Unlike `quiet-start.ts`, which
 * reads the lagging 1-minute load average once before a run, this looks at the CPU time the host actually spent in
 * the last second (`/proc/stat`), so a settled host costs one second a target. Never fails: a host that stays busy
 * is measured as it is after `maxMs` (plus the first one-second look), and the log says so. It sees CPU work only:
 * time a CPU spent waiting for the disk (iowait) counts as idle, so leftover disk work (a checkpoint's or the buffer
 * pool's flushing) is not waited for.
 */
import { readFileSync } from 'node:fs';

/** CPU time of the whole host so far, in clock ticks: all of it, and the idle part (idle + iowait). */
export interface CpuTicks {
  readonly total: number;
  readonly idle: number;
}

/** The host's CPU ticks from the first (`cpu`) line of `/proc/stat` text. @throws {Error} if there is none. */
export function cpuTicksOf(stat: string): CpuTicks {
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) throw new Error('no "cpu" line in /proc/stat');
  // user nice system idle iowait irq softirq steal (guest and guest_nice are already inside user and nice)
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { total, idle: (fields[3] ?? 0) + (fields[4] ?? 0) };
}

/** The host's CPU ticks now (Linux). */
export const hostCpuTicks = (): CpuTicks => cpuTicksOf(readFileSync('/proc/stat', 'utf8'));

export interface IdleHost {
  readonly ticks: () => CpuTicks;
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: (line: string) => void;
  /** Idle share (0–1) of all CPUs over one window that counts as settled. */
  readonly minIdle: number;
  /** Length of one look, in ms. */
  readonly windowMs: number;
  /** Longest wait after the first window, in ms. */
  readonly maxMs: number;
}

/** Idle share of the host over one window of `options.windowMs` (1 when no tick passed). */
async function idleShare({ ticks, sleep, windowMs }: IdleHost): Promise<number> {
  const before = ticks();
  await sleep(windowMs);
  const after = ticks();
  const total = after.total - before.total;
  return total <= 0 ? 1 : (after.idle - before.idle) / total;
}

/**
 * Looks at the host one window at a time until a window's idle share reaches `minIdle` or `maxMs` has passed.
 * Returns the ms spent beyond the first window (0 when the host was settled at once); logs only when it waited.
 */
export async function waitForIdleHost(options: IdleHost): Promise<number> {
  const { log, minIdle, windowMs, maxMs } = options;
  const first = await idleShare(options);
  if (first >= minIdle) return 0;
  let waited = 0;
  let last = first;
  while (waited < maxMs && last < minIdle) {
    last = await idleShare(options);
    waited += windowMs;
  }
  const pct = (share: number) => `${Math.round(share * 100)} %`;
  const verdict = last >= minIdle ? 'settled' : `still busy, going on after ${maxMs / 1_000} s`;
  log(
    `  host CPU idle ${pct(first)} → ${pct(last)} after ${waited / 1_000} s (${verdict}; waited for ≥ ${pct(minIdle)})`,
  );
  return waited;
}
