/**
 * The physical limits of this machine's servers for the statements and commands payonce sends: what a target that is still missed is measured against. `physicalLimits(log)` runs, in about
 * a minute and a half,
 * - `pgbench` of PostgresStore's captured claim + fenced completion at 1, 8 and 64 clients, and the 64-row batched
 *   (unnest) form at 1 and 8 clients (`pgbench-limits.ts`),
 * - `redis-benchmark` of the bare HSETNX/HSET and RedisStore's captured HSETNX claim and EVALSHA completion, unpipelined and
 *   with `-P 16` (`redis-limits.ts`),
 * - `mysqlslap` of MysqlStore's captured claim + completion at 1, 8 and 64 clients (`mysql-limits.ts`),
 * each on a temporary schema, database or key prefix it removes, and returns a markdown section (a table and what
 * it means for the targets). A tool that fails or is missing gives a line saying so; the others still run.
 *
 *   npx tsx limits/limits.ts        prints the section (progress on stderr)
 *
 * `BENCH_QUICK=1` shortens every run (a smoke run).
 */
import { fileURLToPath } from 'node:url';
import { mysqlLimits } from './mysql-limits.js';
import { BATCH_ROWS, pgbenchLimits } from './pgbench-limits.js';
import { redisLimits } from './redis-limits.js';
import type { LimitRow } from './run-tool.js';

const quick = () => process.env.BENCH_QUICK === '1';

const num = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

function table(rows: readonly LimitRow[]): string {
  const lines = ['| what | clients | per second | mean latency | detail |', '|---|---:|---:|---:|---|'];
  for (const r of rows) {
    const latency = r.latencyMs === null ? '–' : `${r.latencyMs.toFixed(2)} ms`;
    lines.push(`| ${r.what} | ${r.clients} | ${num(r.perSec)} ${r.unit}/s | ${latency} | ${r.detail} |`);
  }
  return lines.join('\n');
}

/** The paragraph that says what the numbers mean, from the rows measured (omitting what did not run). */
function meaning(pg: readonly LimitRow[], redis: readonly LimitRow[], my: readonly LimitRow[]): string {
  const parts: string[] = [];
  const single = pg.filter((r) => r.what.includes('2 autocommit'));
  const c1 = single.find((r) => r.clients === 1);
  const top = single.at(-1);
  const batched = pg.filter((r) => r.what.includes('batched'));
  const bestBatched = batched.reduce<LimitRow | null>((a, r) => (a && a.perSec >= r.perSec ? a : r), null);
  if (c1?.latencyMs) {
    parts.push(
      `On PostgreSQL one delivery is two statements and two commits: at 1 client it takes ${c1.latencyMs.toFixed(2)} ms, ` +
        `so a commit (a WAL flush to disk) costs about ${(c1.latencyMs / 2).toFixed(2)} ms here.`,
    );
  }
  if (top) {
    parts.push(
      `At ${top.clients} clients group commit gives ${num(top.perSec * 2)} commits/s, i.e. ${num(top.perSec)} ` +
        `deliveries/s: no one-row-per-statement design (payonce or the bare minimum) can go past that on this disk.`,
    );
  }
  if (bestBatched) {
    parts.push(
      `The batched form (${BATCH_ROWS} rows per statement and per commit) reaches ${num(bestBatched.perSec)} rows/s at ` +
        `${bestBatched.clients} clients${top ? ` — ${(bestBatched.perSec / top.perSec).toFixed(1)}× the one-row ceiling` : ''}: ` +
        'the ceiling of batched claims and completions on this machine.',
    );
  }
  const myTop = my.at(-1);
  if (myTop) {
    parts.push(
      `MariaDB's ceiling for the same two statements is ${num(myTop.perSec)} deliveries/s at ${myTop.clients} clients ` +
        `(${num(myTop.perSec * 2)} commits/s).`,
    );
  }
  const hsetnx = redis.find((r) => r.what.includes('HSETNX (bare'));
  const claim = redis.find((r) => r.what.includes('payonce claim') && !r.what.includes('-P'));
  const complete = redis.find((r) => r.what.includes('completion script'));
  if (hsetnx && claim && complete) {
    const perDelivery = 1 / (1 / claim.perSec + 1 / complete.perSec);
    parts.push(
      `On Redis a bare HSETNX runs at ${num(hsetnx.perSec)} ops/s from ${hsetnx.clients} clients, payonce's claim (an ` +
        `HSETNX of the packed claim) at ${num(claim.perSec)} and its completion script at ${num(complete.perSec)}: one ` +
        `round trip each, so about ${num(perDelivery)} deliveries/s is payonce's unpipelined Redis ceiling; pipelining ` +
        '(-P) shows how much of that is round trips rather than Redis itself.',
    );
  }
  parts.push(
    'Absolute numbers move with the load of the 2 shared cores (others build and test at the same time); the ratios ' +
      'of the targets are measured pair by pair for that reason, these limits once per run.',
  );
  return parts.join(' ');
}

/**
 * Measures the physical limits and returns them as a markdown section (`## Physical limits …`). Never throws for
 * a tool that fails: its rows are replaced by a line with the error.
 */
export async function physicalLimits(log: (line: string) => void): Promise<string> {
  const seconds = quick() ? 1 : 5;
  const started = performance.now();
  const failures: string[] = [];
  const attempt = async (name: string, run: () => Promise<LimitRow[]>): Promise<LimitRow[]> => {
    log(`limits: ${name}`);
    try {
      return await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`  ${name} failed: ${message}`);
      failures.push(`- ${name}: not measured (${message})`);
      return [];
    }
  };
  const pg = await attempt('pgbench (PostgreSQL)', () =>
    pgbenchLimits(log, { clients: [1, 8, 64], batchedClients: [1, 8], seconds }),
  );
  const redis = await attempt('redis-benchmark', () =>
    redisLimits(log, { clients: 8, requests: quick() ? 1_000 : 10_000, pipeline: 16 }),
  );
  const my = await attempt('mysqlslap (MariaDB)', () =>
    mysqlLimits(log, {
      clients: [1, 8, 64],
      deliveries: (clients) => (quick() ? 10 : clients === 1 ? 150 : clients === 8 ? 100 : 30),
    }),
  );
  const elapsed = (performance.now() - started) / 1_000;
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  return [
    '## Physical limits of this machine (pgbench, redis-benchmark, mysqlslap)',
    '',
    `Measured ${date} UTC in ${elapsed.toFixed(0)} s, load average ${(await loadAverage()).toFixed(1)} on 2 cores. ` +
      'Every tool replays what payonce itself sent for one delivery (captured from the drivers: ' +
      '`limits/capture.ts`) with a fresh key per transaction or command; pgbench and mysqlslap run ' +
      `${seconds} s / a fixed count per row on a temporary schema/database with payonce's real table and indexes.`,
    '',
    table([...pg, ...redis, ...my]),
    ...(failures.length > 0 ? ['', ...failures] : []),
    '',
    meaning(pg, redis, my),
    '',
  ].join('\n');
}

async function loadAverage(): Promise<number> {
  const { loadavg } = await import('node:os');
  return loadavg()[0] ?? Number.NaN;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(await physicalLimits((line) => process.stderr.write(`${line}\n`)));
}
