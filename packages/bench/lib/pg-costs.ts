import type { NamespaceInfo } from './namespaces.js';

/**
 * What a round trip and a commit cost on this machine's PostgreSQL, measured in the same run as the rows, with the
 * rows' concurrency (8 callers on a pool of 10): `select 1` (a round trip, no write) and an autocommit INSERT (a
 * round trip plus a commit, i.e. a WAL flush). From them: the commit's cost in round trips, and the most a
 * one-commit design of five round trips (BEGIN, claim, business INSERT, completion, COMMIT) can reach against the
 * two autocommit statements of the bare minimum, `2 × (1 + C) ÷ (5 + C)`.
 */
export interface PostgresCosts {
  /** `select 1` per second, all callers together. */
  readonly roundTripsPerSec: number;
  /** Autocommit single-row INSERTs per second, all callers together. */
  readonly autocommitInsertsPerSec: number;
  /** A commit's cost in round trips: insert time ÷ round-trip time − 1. */
  readonly commitInRoundTrips: number;
  /** `2 × (1 + C) ÷ (5 + C)`: the one-commit design's best ratio to the two-commit bare minimum. */
  readonly oneCommitCeiling: number;
}

/** Runs `statement` from `callers` concurrent callers for `durationMs`; returns statements per second. */
async function rate(
  pool: import('pg').Pool,
  callers: number,
  durationMs: number,
  statement: (i: number) => [string, unknown[]],
) {
  let done = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() - started < durationMs) {
        const [text, values] = statement(next++);
        await pool.query(text, values);
        done++;
      }
    }),
  );
  return (done / (performance.now() - started)) * 1_000;
}

/** Measures `PostgresCosts` on the bench's schema (a scratch table is created and dropped). */
export async function measurePostgresCosts(ns: NamespaceInfo, durationMs = 1_500): Promise<PostgresCosts> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ ...ns.postgres, max: 10 });
  try {
    await pool.query('create table if not exists bench_commit_probe (id bigint primary key, at bigint not null)');
    await rate(pool, 8, 300, () => ['select 1', []]);
    const roundTripsPerSec = await rate(pool, 8, durationMs, () => ['select 1', []]);
    const autocommitInsertsPerSec = await rate(pool, 8, durationMs, (i) => [
      'insert into bench_commit_probe (id, at) values ($1, $2)',
      [i, Date.now()],
    ]);
    const commitInRoundTrips = Math.max(0, roundTripsPerSec / autocommitInsertsPerSec - 1);
    return {
      roundTripsPerSec,
      autocommitInsertsPerSec,
      commitInRoundTrips,
      oneCommitCeiling: (2 * (1 + commitInRoundTrips)) / (5 + commitInRoundTrips),
    };
  } finally {
    await pool.query('drop table if exists bench_commit_probe').catch(() => {});
    await pool.end();
  }
}
