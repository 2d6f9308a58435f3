/**
 * The scale targets: payonce's cost per delivery with 1 000 000 finished receipts already stored
 * against an empty table, on PostgreSQL and MariaDB ("At 1 M stored receipts ≥ 0.9× of the empty-table rate").
 * A = the 1M side, B = the empty side (`scale/scale-side.ts`), unique keys, 8 concurrent callers. The side
 * also takes `--batched`; those pairs are left out of the full run to keep it near 30 minutes.
 *
 * Set-up the PairTarget contract has no place for: the 1M side works on a long-lived seeded namespace
 * (`scale/seeded-namespace.ts`), not on the harness's `BENCH_NS`. A harness should call `prepare(log)` once
 * before the first pair of these targets (seeds both backends, untimed; a side seeds on its own when it finds the
 * namespace missing, so `--only` works without it, but that side then takes a minute longer) and `cleanup(log)`
 * once after the last (drops the seeded namespaces, gives MariaDB's buffer pool its size back), in a `finally`.
 * On MariaDB `prepare()` also grows the InnoDB buffer pool to hold the seeded table (`innodb-pool.ts` says why) and
 * reads the table into it (`innodb-preload.ts`).
 * `prepare()` tags this run's namespaces through the environment variable `PAYONCE_SCALE_RUN`, which the side
 * processes must inherit (spawn them with `process.env`), so a concurrent bench run's `cleanup()` never drops them.
 */

import { randomBytes } from 'node:crypto';
import type { PairTarget, SideSpec } from '../lib/side-protocol.js';
import { growInnodbPool, type PoolChange } from '../scale/innodb-pool.js';
import { preloadInnodbTable } from '../scale/innodb-preload.js';
import { dropSeeded, ensureSeeded, measureTable, SCALE_RUN_ENV, type ScaleBackend } from '../scale/seeded-namespace.js';
import { QUICK_STORED_MAX } from '../scale/side-sizes.js';

/** Finished receipts stored on the A side. */
export const STORED_RECEIPTS = 1_000_000;

const SCRIPT = 'scale/scale-side.ts';
const NAMES: Record<ScaleBackend, string> = { postgres: 'PostgreSQL', mysql: 'MariaDB' };

function side(backend: ScaleBackend, stored: number, batched: boolean): SideSpec {
  const what = stored === 0 ? 'empty table' : `${stored.toLocaleString('en')} stored receipts`;
  return {
    id: `${backend}/payonce${batched ? '-batched' : ''}@${stored === 0 ? 'empty' : `${stored / 1_000_000}m`}`,
    label: `payonce guard.run${batched ? ', batched' : ''}, ${what}, 8 callers, unique keys`,
    backend,
    script: SCRIPT,
    args: ['--stored', String(stored), '--concurrency', '8', ...(batched ? ['--batched'] : [])],
  };
}

function target(backend: ScaleBackend, batched: boolean): PairTarget {
  return {
    id: `${backend}${batched ? '-batched' : ''}-1m-receipts`,
    group: 'Scale with stored data',
    title: `${NAMES[backend]}${batched ? ' batched' : ''} guard.run with 1 M finished receipts stored ÷ empty table, 8 concurrent unique deliveries${backend === 'mysql' ? ' (InnoDB buffer pool sized to hold the table)' : ''}`,
    a: side(backend, STORED_RECEIPTS, batched),
    b: side(backend, 0, batched),
    min: 0.9,
  };
}

export const targets: readonly PairTarget[] = Object.freeze([target('postgres', false), target('mysql', false)]);

/** The buffer pool growth `prepare()` made for the MariaDB target, given back by `cleanup()`. */
let poolChange: PoolChange | null = null;

/** The backends `ids` (target ids; all when omitted) need seeded. */
function backendsOf(ids?: readonly string[]): ScaleBackend[] {
  const chosen = ids ? targets.filter((t) => ids.includes(t.id)) : targets;
  return [...new Set(chosen.map((t) => t.a.backend as ScaleBackend))];
}

/**
 * Seeds the 1M namespace of every backend the chosen targets use (all when `ids` is omitted), unless it is already
 * there, grows MariaDB's InnoDB buffer pool to hold that table (`innodb-pool.ts`) and reads the table into it
 * (`innodb-preload.ts`); untimed. Call once before
 * the first pair. In a smoke run (`BENCH_QUICK=1`) the sides seed their own small namespace, so this does nothing.
 */
export async function prepare(log: (line: string) => void, ids?: readonly string[]): Promise<void> {
  process.env[SCALE_RUN_ENV] ??= randomBytes(4).toString('hex');
  if (process.env.BENCH_QUICK === '1') return;
  for (const backend of backendsOf(ids)) {
    const seeded = await ensureSeeded(backend, STORED_RECEIPTS, log);
    if (backend === 'mysql' && poolChange === null) {
      poolChange = await growInnodbPool((await measureTable('mysql', seeded.name)).bytes, log);
      await preloadInnodbTable(seeded.name, log);
    }
  }
}

/**
 * Drops this run's seeded namespaces (of every size a side may have made: full and smoke; the shared untagged ones
 * when `prepare()` was not called). Call once after the last pair.
 */
export async function cleanup(log: (line: string) => void): Promise<void> {
  await poolChange?.restore();
  poolChange = null;
  for (const backend of ['postgres', 'mysql'] as const) {
    for (const stored of [STORED_RECEIPTS, QUICK_STORED_MAX]) {
      try {
        await dropSeeded(backend, stored);
      } catch (error) {
        log(`  scale cleanup: ${backend} ${stored}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
