/**
 * Redis's physical limit for payonce's commands on this machine: `redis-benchmark` sends the bare minimum's HSETNX
 * (claim) and HSET (completion fields), and the exact commands `RedisStore` sent for one captured delivery
 * (`capture.ts`): its claim (`HSETNX <receipt> status <packed claim>`) and its completion (`EVALSHA` of the small fenced
 * script), with the key part replaced by `__rand_int__` (a fresh 12-digit number per command out of 10^12, so claims
 * are unique), without and with 16-command pipelining (`-P 16`). docs/design.md §3 "Redis: the receipt hash".
 *
 * The completion script only records a response on a receipt that is still claimed by the same attempt, and
 * redis-benchmark cannot hand a claim's key to a later completion. So its row runs on a key space claimed beforehand
 * (R keys, pipelined claims) with R random draws: the first completion of a key is recorded, a repeat is fenced out
 * (one HSETNX that changes nothing); the row says how many were recorded (receipts with more than the claim's field).
 * Everything is written under a unique prefix, deleted afterwards.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { BENCH_URLS, deleteRedisPrefix } from '../lib/namespaces.js';
import { CAPTURE_KEY, type CapturedCommand, captureRedis } from './capture.js';
import { type LimitRow, runTool } from './run-tool.js';

const REDIS_BENCHMARK = process.env.PAYONCE_REDIS_BENCHMARK ?? '/usr/bin/redis-benchmark';
const RAND = '__rand_int__';

/** The arguments of `command` with the captured key replaced by `replacement` (text; Buffers decoded as UTF-8). */
function withKey(command: CapturedCommand, replacement: string): string[] {
  return command.args.map((arg) =>
    (Buffer.isBuffer(arg) ? arg.toString('utf8') : String(arg)).replaceAll(CAPTURE_KEY, replacement),
  );
}

interface CsvRow {
  readonly rps: number;
  readonly avgMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Parses `redis-benchmark --csv`: a header line, then `"test","rps","avg_latency_ms","min…","p50…","p95…","p99…","max…"`. */
function parseCsv(stdout: string): CsvRow {
  const line = stdout
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('"test"'))
    .at(-1);
  const cells = (line ?? '').split('","').map((cell) => cell.replaceAll('"', ''));
  const [rps, avg, , p50, , p99] = cells.slice(1).map(Number);
  if (!rps || Number.isNaN(rps)) throw new Error(`redis-benchmark printed no result: ${stdout.slice(-300)}`);
  return { rps, avgMs: avg ?? Number.NaN, p50Ms: p50 ?? Number.NaN, p99Ms: p99 ?? Number.NaN };
}

/** Runs redis-benchmark limits: `requests` commands per unpipelined row (10× that pipelined). */
export async function redisLimits(
  log: (line: string) => void,
  sizes: { clients: number; requests: number; pipeline: number },
): Promise<LimitRow[]> {
  const url = new URL(BENCH_URLS.redis);
  const prefix = `payonce-limits-${randomBytes(5).toString('hex')}:`;
  const client = new Redis(BENCH_URLS.redis);
  const rows: LimitRow[] = [];
  const bench = async (
    what: string,
    command: string[],
    options: { pipeline?: number; keyspace?: number; n: number },
  ) => {
    const args = ['-h', url.hostname, '-p', url.port || '6379', '-c', String(sizes.clients), '-n', String(options.n)];
    args.push('-r', String(options.keyspace ?? 1_000_000_000_000), '-P', String(options.pipeline ?? 1), '--csv');
    const { stdout } = await runTool(REDIS_BENCHMARK, [...args, ...command], { timeoutMs: 60_000 });
    const r = parseCsv(stdout);
    log(`  redis-benchmark ${what}${options.pipeline ? ` -P ${options.pipeline}` : ''}: ${r.rps.toFixed(0)} ops/s`);
    return r;
  };
  const push = (what: string, r: CsvRow, extra = '') =>
    rows.push({
      what,
      clients: sizes.clients,
      perSec: r.rps,
      unit: 'ops',
      latencyMs: r.avgMs,
      detail: `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${extra}`,
    });
  try {
    const captured = await captureRedis(BENCH_URLS.redis, prefix);
    const claim = captured.find((c) => c.name === 'HSETNX');
    const complete = captured.find((c) => c.name === 'EVALSHA');
    if (!claim || !complete || captured.length !== 2) {
      const names = captured.map((c) => c.name).join(', ');
      throw new Error(`RedisStore sent ${names || 'nothing'} for a delivery (expected HSETNX, EVALSHA)`);
    }
    const bareKey = `${prefix}bare:${RAND}`;
    const hsetnx = ['HSETNX', bareKey, 'status', 'processing'];
    const body = '{"received":true}';
    const headers = '{"content-type":"application/json"}';
    const hset = ['HSET', bareKey, 'status', 'completed', 'finished_at', String(Date.now())];
    hset.push('response_status', '200', 'response_headers', headers, 'response_body', body);
    const n = sizes.requests;
    const p = sizes.pipeline;
    push('redis-benchmark: HSETNX (bare claim)', await bench('HSETNX', hsetnx, { n }));
    push(`redis-benchmark: HSETNX, -P ${p}`, await bench('HSETNX', hsetnx, { n: n * 10, pipeline: p }));
    push('redis-benchmark: HSET of the response (bare completion)', await bench('HSET', hset, { n }));
    const claimArgs = ['HSETNX', ...withKey(claim, RAND)];
    push('redis-benchmark: payonce claim (HSETNX of the packed claim)', await bench('claim', claimArgs, { n }));
    push(
      `redis-benchmark: payonce claim (HSETNX of the packed claim), -P ${p}`,
      await bench('claim', claimArgs, { n: n * 10, pipeline: p }),
    );
    // The completion on claimed receipts: claim R keys as redis-benchmark names them (12 digits), then R draws.
    const keyspace = n;
    const claims = Array.from({ length: keyspace }, (_, i) => withKey(claim, String(i).padStart(12, '0')));
    const claiming = client.pipeline();
    for (const args of claims) claiming.call('HSETNX', ...args);
    await claiming.exec();
    const completeArgs = ['EVALSHA', ...withKey(complete, RAND)];
    const r = await bench('EVALSHA complete', completeArgs, { n: keyspace, keyspace });
    const counting = client.pipeline();
    for (const [receipt] of claims) counting.hlen(receipt!);
    const lengths = (await counting.exec()) ?? [];
    const recorded = lengths.filter(([, length]) => Number(length) > 1).length;
    push(
      'redis-benchmark: EVALSHA payonce completion script (on claimed receipts)',
      r,
      `; ${((recorded / keyspace) * 100).toFixed(0)} % recorded, the rest fenced out (repeat draws)`,
    );
  } finally {
    await deleteRedisPrefix(client, prefix).catch((error: unknown) => log(`  redis cleanup ${prefix}: ${error}`));
    await client.quit();
  }
  return rows;
}
