import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';
import { type Deliver, measureStorm, measureUnique, type RunSample } from '../lib/measure.js';
import type { BenchBackend, Namespace } from '../lib/namespaces.js';
import { type Log, type RowResult, rowOf, WARMUP_MAX_MS } from '../lib/run-rows.js';
import { payloadOf } from '../lib/subject.js';
import { type HttpRow, type ParentMessage, type ServerMessage, WEBHOOK_SECRET } from './http-routes.js';

/** Sizes of workload (c). */
export interface HttpSizes {
  /** A timed run sends signed deliveries for `durationMs` (at most `requests`), over `concurrency` connections. */
  readonly durationMs: number;
  readonly requests: number;
  readonly concurrency: number;
  /** The HTTP storm: keys × copies, all copies in flight together, `concurrency` keys at a time, no new key after `stormMaxMs`. */
  readonly stormKeys: number;
  readonly stormMaxMs: number;
  readonly stormCopies: number;
  readonly warmup: number;
  readonly reps: number;
}

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));

/** A running server child. */
interface Server {
  readonly origin: string;
  ask(message: ParentMessage): Promise<number>;
  stop(): Promise<void>;
}

async function startServer(row: HttpRow, ns: Namespace): Promise<Server> {
  const child: ChildProcess = fork(SERVER, [JSON.stringify({ route: row.route, ns: ns.info })], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<ServerMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`server ${row.route} exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (message: ServerMessage) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  const first = await next();
  if (first.type !== 'listening') {
    child.kill();
    throw new Error(first.type === 'failed' ? first.error : `unexpected ${first.type}`);
  }
  return {
    origin: `http://127.0.0.1:${first.port}`,
    async ask(message) {
      const reply = next();
      child.send(message);
      const answer = await reply;
      return answer.type === 'runs' ? answer.runs : Number.NaN;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

interface Signed {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Signs the deliveries of ids `${prefix}0 … ${prefix}${count - 1}` ahead of the timed run (client cost excluded). */
function sign(prefix: string, count: number): Map<string, Signed> {
  const webhook = new Webhook(WEBHOOK_SECRET);
  const now = new Date();
  const signed = new Map<string, Signed>();
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${i}`;
    const body = payloadOf(id);
    signed.set(id, {
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1_000)),
        'webhook-signature': webhook.sign(id, now, body),
        'idempotency-key': `"${id}"`,
      },
    });
  }
  return signed;
}

/** A client delivering pre-signed requests over `connections` keep-alive connections (undici). */
function client(
  origin: string,
  connections: number,
  signed: Map<string, Signed>,
): { deliver: Deliver; close(): Promise<void> } {
  const pool = new Pool(origin, { connections, pipelining: 1 });
  return {
    async deliver(id) {
      const request = signed.get(id);
      if (!request) throw new Error(`unsigned id ${id}`);
      const response = await pool.request({
        path: '/webhook',
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      await response.body.dump();
      if (response.statusCode === 409) return 'in-progress';
      if (response.statusCode >= 200 && response.statusCode < 300) return 'ran';
      throw new Error(`HTTP ${response.statusCode}`);
    },
    close: () => pool.close(),
  };
}

/**
 * Workload (c): for each HTTP row, a fresh server child on loopback, an untimed warm-up, `reps` timed runs of
 * `durationMs` of unique signed deliveries (at most `requests`), then one storm whose handler runs the server counts.
 */
export async function runHttp(
  rows: readonly HttpRow[],
  namespaces: ReadonlyMap<BenchBackend, Namespace>,
  sizes: HttpSizes,
  log: Log = () => {},
): Promise<RowResult[]> {
  const results: RowResult[] = [];
  for (const row of rows) {
    const ns = namespaces.get(row.backend);
    if (!ns) throw new Error(`no namespace for ${row.backend}`);
    const samples: RunSample[] = [];
    let storm: RunSample | null = null;
    let stormRuns: number | null = null;
    let error: string | null = null;
    let server: Server | null = null;
    try {
      server = await startServer(row, ns);
      const warm = client(server.origin, sizes.concurrency, sign('w-', sizes.warmup));
      await measureUnique(warm.deliver, sizes.warmup, sizes.concurrency, 'w-', WARMUP_MAX_MS);
      await warm.close();
      for (let rep = 0; rep < sizes.reps; rep++) {
        await ns.reset();
        const prefix = `c${rep}-`;
        const http = client(server.origin, sizes.concurrency, sign(prefix, sizes.requests));
        samples.push(await measureUnique(http.deliver, sizes.requests, sizes.concurrency, prefix, sizes.durationMs));
        await http.close();
      }
      await ns.reset();
      await server.ask({ type: 'reset' });
      const stormClient = client(server.origin, sizes.concurrency * sizes.stormCopies, sign('s-', sizes.stormKeys));
      storm = await measureStorm(
        stormClient.deliver,
        sizes.stormKeys,
        sizes.stormCopies,
        sizes.concurrency,
        's-',
        sizes.stormMaxMs,
      );
      await stormClient.close();
      stormRuns = await server.ask({ type: 'runs' });
      const median = [...samples].sort((a, b) => a.opsPerSec - b.opsPerSec)[Math.floor(samples.length / 2)];
      log(
        `  ${row.id.padEnd(36)} (c) ${median?.opsPerSec.toFixed(0).padStart(6)}/s  storm handler runs ${stormRuns}/${storm.deliveries / sizes.stormCopies}`,
      );
    } catch (failure) {
      error = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
      log(`  ${row.id}: FAILED ${error}`);
    } finally {
      await server?.stop();
    }
    results.push(rowOf(row, 'http', samples, { error }));
    results.push(
      rowOf(row, 'http-storm', storm ? [storm] : [], {
        handlerRuns: stormRuns === null ? [] : [stormRuns],
        expected: storm ? [storm.deliveries / sizes.stormCopies] : [],
        error,
      }),
    );
  }
  return results;
}
