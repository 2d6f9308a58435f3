/**
 * PostgreSQL's full-page writes, and a warm-up that waits them out before a scale side's timed run.
 *
 * With `full_page_writes = on` (the default, and required for crash safety on ordinary disks) the first change of
 * a page after a checkpoint writes the whole 8 KB page into the WAL. On the empty table a few hundred pages take
 * every write, so that costs nothing after the first deliveries. A claim into a 1 M-row primary key lands on a
 * random one of its ~10 000 leaf pages: right after a checkpoint nearly every delivery writes one or two page
 * images (measured 2026-12-05 with the bare minimum's two statements on raw `pg`: 1.5 images and 15 KB of WAL per
 * delivery against 1.2 KB on the empty table), until most leaves have been changed once since that checkpoint —
 * some 25 000 deliveries here. PostgreSQL checkpoints every 5 minutes by default (`checkpoint_timeout`), so on a
 * live server that burst is the first seconds of each cycle, not its cost per delivery. A side that starts its
 * timed run right after a CHECKPOINT times only that burst (notes/limits.md).
 *
 * `warmUntilSteady` therefore keeps delivering, untimed, until the WAL written per delivery has come down to the
 * level of a delivery that writes (almost) no page image, and the side reports the WAL bytes, page images and
 * checkpoints of its timed run, so a reader sees which regime the run measured.
 */
import type { Deliver } from '../lib/measure.js';
import { measureUnique } from '../lib/measure.js';
import type { NamespaceInfo } from '../lib/namespaces.js';
import { pgClient } from './drivers.js';

/** A point in the server's WAL: position (bytes), full-page images and checkpoints so far (cluster-wide). */
export interface WalPoint {
  readonly lsnBytes: bigint;
  readonly fullPageImages: number;
  readonly checkpoints: number;
}

/** WAL written between two points, per delivery. */
export interface WalSpan {
  readonly walBytesPerDelivery: number;
  readonly fullPageImagesPerDelivery: number;
  readonly checkpoints: number;
}

/** What the warm-up did. */
export interface SettleReport {
  readonly deliveries: number;
  readonly seconds: number;
  /** WAL bytes per delivery of the last window. */
  readonly walBytesPerDelivery: number;
  /** False when `maxMs` ran out before the WAL came down. */
  readonly steady: boolean;
}

/**
 * Steady when a window's deliveries write at most this many WAL bytes each: the two statements of a delivery write
 * about 1.35 KB without a page image (measured on the empty table), one image adds about 8 KB, so 2 KB means about
 * one image in twelve deliveries. (3 KB, the first setting, left the timed runs at 0.24–0.29 images and 3.7 KB per
 * delivery, still inside the burst: notes/limits.md.)
 */
export const STEADY_WAL_BYTES_PER_DELIVERY = 2_048;

/** Deliveries per warm-up window. */
export const SETTLE_WINDOW = 2_000;

/** The server's current WAL point (`pg_current_wal_lsn`, `pg_stat_wal.wal_fpi`, `pg_stat_bgwriter` checkpoints). */
export async function walPoint(info: NamespaceInfo): Promise<WalPoint> {
  const client = await pgClient(info.postgres!);
  await client.connect();
  try {
    const { rows } = await client.query<{ lsn: string; fpi: string; checkpoints: string }>(
      `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as lsn,
        (select wal_fpi from pg_stat_wal)::text as fpi,
        (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::text as checkpoints`,
    );
    const row = rows[0]!;
    return { lsnBytes: BigInt(row.lsn), fullPageImages: Number(row.fpi), checkpoints: Number(row.checkpoints) };
  } finally {
    await client.end();
  }
}

/**
 * The WAL between `from` and `to` per delivery. Page images come from the cumulative statistics, which a backend
 * flushes when it goes idle (at most once a second), so over a short span they may lag; the WAL position is exact.
 */
export function walSpan(from: WalPoint, to: WalPoint, deliveries: number): WalSpan {
  const per = (n: number) => (deliveries > 0 ? n / deliveries : 0);
  return {
    walBytesPerDelivery: Math.round(per(Number(to.lsnBytes - from.lsnBytes))),
    fullPageImagesPerDelivery: Math.round(per(to.fullPageImages - from.fullPageImages) * 100) / 100,
    checkpoints: to.checkpoints - from.checkpoints,
  };
}

/**
 * Untimed deliveries of fresh keys (`w<window>-<i>`) from `concurrency` callers, in windows of `SETTLE_WINDOW`,
 * until a window writes at most `STEADY_WAL_BYTES_PER_DELIVERY` of WAL per delivery or `maxMs` has passed.
 */
export async function warmUntilSteady(
  deliver: Deliver,
  info: NamespaceInfo,
  concurrency: number,
  maxMs: number,
): Promise<SettleReport> {
  const started = performance.now();
  let deliveries = 0;
  let last = Number.POSITIVE_INFINITY;
  for (let window = 0; ; window++) {
    const left = maxMs - (performance.now() - started);
    if (left <= 0) break;
    const before = await walPoint(info);
    const sample = await measureUnique(deliver, SETTLE_WINDOW, concurrency, `w${window}-`, left);
    deliveries += sample.deliveries;
    last = walSpan(before, await walPoint(info), sample.deliveries).walBytesPerDelivery;
    if (last <= STEADY_WAL_BYTES_PER_DELIVERY) break;
  }
  return {
    deliveries,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    walBytesPerDelivery: last,
    steady: last <= STEADY_WAL_BYTES_PER_DELIVERY,
  };
}
