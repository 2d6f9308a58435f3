/**
 * Child process of the Redis hammer tests: `concurrency` loops call `guard.run` on a few shared keys for
 * `durationMs`, with handlers that sometimes outlive the lease (so takeovers race with completions and fails),
 * sometimes throw, and answer binary / empty / unicode bodies that name their key. It prints one JSON line:
 * the outcomes it saw per key (bodies of its own completions and of its replays, counts of errors by class).
 * argv: <json config>  { url?, clusterNodes?, prefix, keys: [provider, externalId][], concurrency, durationMs,
 *                        staleAfterMs, waitForInFlightMs, maxHandlerMs, failRate, notify? }
 */
import { createHash } from 'node:crypto';
import { Cluster } from 'ioredis';
import { IdempotencyGuard } from '../../../../packages/payonce/src/core/idempotency-guard.js';
import { RedisStore } from '../../../../packages/payonce/src/stores/redis/redis-store.js';
import { keyOf } from './hammer-keys.js';

interface Config {
  url?: string;
  clusterNodes?: { host: string; port: number }[];
  prefix: string;
  /** Keys are `keyOf(index)`; the loops pick among `width` fresh indexes that change every `windowMs` from `startAt`. */
  runId: string;
  startAt: number;
  windowMs: number;
  width: number;
  concurrency: number;
  durationMs: number;
  staleAfterMs: number;
  waitForInFlightMs: number;
  maxHandlerMs: number;
  failRate: number;
  /** Whether 1 in 80 bodies is 1.1 MB (heavy replays; off where latency is measured). */
  bigBodies?: boolean;
  /** The guard's `waitPollMaxMs` (a huge value leaves the notification as a waiter's only wake-up). */
  waitPollMaxMs?: number;
  /** When set, one extra loop purges every finished receipt (`olderThan: 0`) this often (ms). */
  purgeEveryMs?: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
const store = config.clusterNodes
  ? new RedisStore({
      client: new Cluster(config.clusterNodes, { redisOptions: { maxRetriesPerRequest: 3 } }),
      prefix: config.prefix,
    })
  : await RedisStore.connect(config.url ?? '', { prefix: config.prefix, timeoutMs: 5_000 });
const guard = new IdempotencyGuard(store, {
  staleAfterMs: config.staleAfterMs,
  waitForInFlightMs: config.waitForInFlightMs,
  ...(config.waitPollMaxMs === undefined ? {} : { waitPollMaxMs: config.waitPollMaxMs }),
});
const waits: number[] = [];
/** Waits that ran out their whole budget without seeing the receipt change. */
let waitTimeouts = 0;
guard.on('receipt:waited', (event) => {
  if (event.end !== 'aborted') waits.push(Math.round(event.waitedMs));
  if (event.end === 'timeout') waitTimeouts += 1;
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A body that names its key and its producer: binary, empty-ish, unicode, sometimes 1 MiB. */
function bodyFor(index: number, attempt: number): Uint8Array {
  const tag = Buffer.from(`${index}|${process.pid}|${attempt}|${Math.random()}|`, 'utf8');
  const kind = Math.floor(Math.random() * 4);
  if (kind === 0) return new Uint8Array(tag);
  if (kind === 1) return new Uint8Array(Buffer.concat([tag, Buffer.from([0xff, 0x00, 0xfe, 0x3a, 0x0d, 0x0a])]));
  if (kind === 2) return new Uint8Array(Buffer.concat([tag, Buffer.from('ключ:{значение}=*?[]', 'utf8')]));
  return new Uint8Array(
    Buffer.concat([tag, Buffer.alloc(config.bigBodies !== false && Math.random() < 0.05 ? 1_100_000 : 2_000, 0x3a)]),
  );
}

const report = {
  pid: process.pid,
  runs: 0,
  wins: {} as Record<number, string[]>,
  replays: {} as Record<number, string[]>,
  errors: {} as Record<string, number>,
  waits,
  get waitTimeouts() {
    return waitTimeouts;
  },
};
const hex = (body: Uint8Array) => createHash('sha256').update(body).digest('base64');
const until = Date.now() + config.durationMs;

async function loop(): Promise<void> {
  while (Date.now() < until) {
    const window = Math.floor((Date.now() - config.startAt) / config.windowMs);
    const index = window * config.width + Math.floor(Math.random() * config.width);
    const key = keyOf(config.runId, index);
    try {
      const outcome = await guard.run(key, async ({ attempt }) => {
        report.runs++;
        await sleep(Math.random() * config.maxHandlerMs);
        if (Math.random() < config.failRate) throw new Error(`boom:${attempt}:ключ`);
        return {
          status: 200 + (attempt % 3),
          headers: { 'x-key': `${index}`, 'x-odd': '"\\:{}\u2028' },
          body: bodyFor(index, attempt),
        };
      });
      const bag = outcome.isReplay ? report.replays : report.wins;
      const list = bag[index] ?? [];
      bag[index] = list;
      const text = hex(outcome.response.body);
      if (outcome.isReplay ? !list.includes(text) : true) list.push(text);
    } catch (error) {
      const name = error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
      const label = name.startsWith('boom:') ? 'boom' : name;
      report.errors[label] = (report.errors[label] ?? 0) + 1;
    }
  }
}

async function purgeLoop(every: number): Promise<void> {
  while (Date.now() < until) {
    try {
      await guard.purge({ olderThan: 0 });
    } catch (error) {
      const name = (error as { code?: string }).code ?? String(error);
      report.errors[`purge:${name}`] = (report.errors[`purge:${name}`] ?? 0) + 1;
    }
    await sleep(every);
  }
}

const purging = config.purgeEveryMs === undefined ? [] : [purgeLoop(config.purgeEveryMs)];
await Promise.all([...Array.from({ length: config.concurrency }, loop), ...purging]);
await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(report)}\n`, () => resolve()));
await store.close();
if (config.clusterNodes) (store as unknown as { client: Cluster }).client.disconnect();
process.exit(0);
