/**
 * PostgreSQL's physical limit for payonce's statements on this machine: `pgbench` replays, per transaction, the
 * exact claim INSERT … ON CONFLICT DO NOTHING and fenced completion UPDATE that `PostgresStore` sent for one captured
 * delivery (`capture.ts`; two autocommit statements, two commits, like `guard.run`), with a fresh random key per
 * transaction and every other parameter as captured, in pgbench's extended protocol (parse/bind/execute per
 * statement, as `pg` sends an unnamed statement). Then the multi-row (batched) form of claims and completions: one claim
 * `INSERT … SELECT … FROM unnest($offsets::int[]) ON CONFLICT DO NOTHING RETURNING` and one completion
 * `UPDATE … FROM unnest($offsets::int[])`, 64 rows each, one commit each (pgbench cannot bind a fresh array per
 * transaction, so it binds a fixed array of 64 offsets and the keys are `random base × 64 + offset`). Runs on a
 * temporary schema migrated with payonce's own migrations (the real indexes and the finish-notify trigger), dropped
 * afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from 'payonce/internal/stores/postgres/postgres-store.js';
import pg from 'pg';
import { BENCH_URLS } from '../lib/namespaces.js';
import { CAPTURE_KEY, type CapturedStatement, capturePostgres } from './capture.js';
import { type LimitRow, runTool } from './run-tool.js';

const PGBENCH = process.env.PAYONCE_PGBENCH ?? '/usr/bin/pgbench';

/** Rows per multi-row statement of the batched form. */
export const BATCH_ROWS = 64;

/** A pgbench parameter value as text, as `pg` sends it (Buffers as `\x` hex). */
function asText(value: unknown): string {
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  return String(value);
}

/**
 * The pgbench script of the captured statements: `$n` → a pgbench variable; the captured key → `:key` (random per
 * transaction), every other value → a `-D` variable holding the captured value. Returns the script and its `-D`s.
 */
export function singleRowScript(statements: readonly CapturedStatement[]): { script: string; defines: string[] } {
  const defines: string[] = [];
  const lines = ['\\set key random(1, 1000000000000000)'];
  statements.forEach((statement, s) => {
    const text = statement.text.replace(/\$(\d+)/g, (_match, n: string) => {
      const value = statement.values[Number(n) - 1];
      if (value === CAPTURE_KEY) return ':key';
      const name = `s${s}p${n}`;
      defines.push(`${name}=${asText(value)}`);
      return `:${name}`;
    });
    lines.push(`${text};`);
  });
  return { script: `${lines.join('\n')}\n`, defines };
}

/** The batched form (see the module comment); `:provider`, `:now`, … are `-D` variables. */
function batchedScript(): { script: string; defines: string[] } {
  const offsets = `{${Array.from({ length: BATCH_ROWS }, (_, i) => i).join(',')}}`;
  const key = `(:key::bigint * ${BATCH_ROWS} + o)::text`;
  const script = `\\set key random(1, 100000000000000)
insert into payonce_receipts (provider, external_id, status, attempts, claimed_at, finished_at, created_at, fingerprint, response_status, response_headers, response_body, error) select :provider, ${key}, 'processing', 1, :now, null, :now, :fingerprint, null, null, null, null from unnest(:offsets::int[]) as o on conflict (provider, external_id) do nothing returning external_id;
update payonce_receipts as r set status = 'completed', finished_at = :now, response_status = 200, response_headers = :headers, response_body = :body::bytea, error = null from unnest(:offsets::int[]) as o where r.provider = :provider and r.external_id = ${key} and r.status = 'processing' and r.attempts = 1;
`;
  return {
    script,
    defines: [
      `offsets=${offsets}`,
      'provider=bench',
      `now=${Date.now()}`,
      `fingerprint=${'ab'.repeat(32)}`,
      'headers={"content-type":"application/json"}',
      `body=\\x${Buffer.from('{"received":true}').toString('hex')}`,
    ],
  };
}

interface PgbenchResult {
  readonly tps: number;
  readonly latencyMs: number | null;
  readonly failed: number;
}

function parsePgbench(stdout: string): PgbenchResult {
  const tps = /tps = ([\d.]+)/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no tps: ${stdout.slice(-300)}`);
  const latency = /latency average = ([\d.]+) ms/.exec(stdout);
  const failed = /number of failed transactions: (\d+)/.exec(stdout);
  return {
    tps: Number(tps[1]),
    latencyMs: latency ? Number(latency[1]) : null,
    failed: failed ? Number(failed[1]) : 0,
  };
}

/** Clients this server can still take, leaving headroom for everyone else on the machine. */
async function freeConnections(): Promise<number> {
  const client = new pg.Client({ connectionString: BENCH_URLS.postgres });
  await client.connect();
  try {
    const { rows } = await client.query<{ max: string; used: string }>(
      `select current_setting('max_connections') as max, (select count(*) from pg_stat_activity) as used`,
    );
    return Number(rows[0]!.max) - Number(rows[0]!.used) - 10;
  } finally {
    await client.end();
  }
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_URLS.postgres });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs the single-row script at each of `clients` and the batched one at each of `batchedClients`. */
export async function pgbenchLimits(
  log: (line: string) => void,
  sizes: { clients: readonly number[]; batchedClients: readonly number[]; seconds: number },
): Promise<LimitRow[]> {
  const schema = `payonce_limits_${randomBytes(5).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'payonce-limits-'));
  const url = new URL(BENCH_URLS.postgres);
  const env = {
    ...process.env,
    PGOPTIONS: `-c search_path=${schema}`,
    PGHOST: url.hostname,
    PGPORT: url.port || '5432',
    PGUSER: decodeURIComponent(url.username) || 'postgres',
    PGDATABASE: url.pathname.slice(1) || 'postgres',
    ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}),
  };
  const rows: LimitRow[] = [];
  try {
    await admin(`create schema ${schema}`);
    const config = { connectionString: BENCH_URLS.postgres, options: `-c search_path=${schema}` };
    const store = await PostgresStore.connect(config);
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    const captured = await capturePostgres(config);
    if (captured.length !== 2) log(`  pgbench: payonce sent ${captured.length} receipts statements (expected 2)`);
    const single = singleRowScript(captured);
    const batched = batchedScript();
    await writeFile(join(dir, 'single.sql'), single.script);
    await writeFile(join(dir, 'batched.sql'), batched.script);
    const free = await freeConnections();
    const run = async (file: string, defines: readonly string[], wanted: number) => {
      const clients = Math.max(1, Math.min(wanted, free));
      const args = ['-n', '-M', 'extended', '-T', String(sizes.seconds), '-c', String(clients)];
      args.push('-j', String(Math.min(clients, 2)), '-f', join(dir, file));
      for (const define of defines) args.push('-D', define);
      const { stdout } = await runTool(PGBENCH, args, { env, timeoutMs: sizes.seconds * 1_000 + 30_000 });
      return { clients, ...parsePgbench(stdout) };
    };
    for (const wanted of sizes.clients) {
      const r = await run('single.sql', single.defines, wanted);
      log(`  pgbench single-row c${r.clients}: ${r.tps.toFixed(0)} deliveries/s, ${r.latencyMs} ms`);
      rows.push({
        what: 'PostgreSQL pgbench: payonce claim + completion, 2 autocommit statements (2 commits)',
        clients: r.clients,
        perSec: r.tps,
        unit: 'deliveries',
        latencyMs: r.latencyMs,
        detail: `${(r.tps * 2).toFixed(0)} commits/s${r.failed ? `, ${r.failed} failed` : ''}`,
      });
    }
    for (const wanted of sizes.batchedClients) {
      const r = await run('batched.sql', batched.defines, wanted);
      log(`  pgbench batched c${r.clients}: ${(r.tps * BATCH_ROWS).toFixed(0)} rows/s, ${r.latencyMs} ms`);
      rows.push({
        what: `PostgreSQL pgbench: batched claim + completion, ${BATCH_ROWS} rows per statement (unnest), 2 commits`,
        clients: r.clients,
        perSec: r.tps * BATCH_ROWS,
        unit: 'deliveries',
        latencyMs: r.latencyMs,
        detail: `${(r.tps * 2).toFixed(0)} commits/s${r.failed ? `, ${r.failed} failed` : ''}`,
      });
    }
  } finally {
    await admin(`drop schema if exists ${schema} cascade`).catch((error: unknown) => log(`  drop ${schema}: ${error}`));
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
