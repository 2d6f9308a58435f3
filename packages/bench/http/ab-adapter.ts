/**
 * Pair-by-pair ratio of two fastify webhook routes of `http/server.ts` over loopback:
 * side A (default `fastify-adapter`) and side B (default `fastify-bare`) run alternately, A B A B …, each side in a
 * fresh server process on a freshly reset namespace, the same signed unique deliveries over 8 keep-alive connections
 * (undici) after an untimed warm-up. Prints each pair's rates and A ÷ B, then the median of the pair ratios with
 * its min–max. With `--cpu-prof DIR` every server child writes a V8 CPU profile into DIR (see `cpu-self.ts`).
 * `--a-server FILE` / `--b-server FILE` run a side from another tree's `http/server.ts` (an A/B of two
 * versions of the same route: e.g. a read-only checkout of main against this tree).
 *   node --import tsx http/ab-adapter.ts memory 7 [--a fastify-adapter] [--b fastify-bare] [--ms 3000]
 *     [--a-server /path/to/other/bench/http/server.ts]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';
import { measureUnique } from '../lib/measure.js';
import { type BenchBackend, createNamespace, type Namespace } from '../lib/namespaces.js';
import { cpuOfStatFile } from '../lib/proc-cpu.js';
import { payonceNodeArgs } from '../lib/side-node-args.js';
import { payloadOf } from '../lib/subject.js';
import { type HttpRouteName, type ServerMessage, WEBHOOK_SECRET } from './http-routes.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    a: { type: 'string', default: 'fastify-adapter' },
    b: { type: 'string', default: 'fastify-bare' },
    ms: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '8' },
    'cpu-prof': { type: 'string' },
    'a-server': { type: 'string' },
    'b-server': { type: 'string' },
  },
});
const backend = (positionals[0] ?? 'memory') as BenchBackend;
const pairs = Number(positionals[1] ?? '7');
const durationMs = Number(values.ms);
const warmup = Number(values.warmup);
const concurrency = Number(values.concurrency);
const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));

/** CPU time the process `pid` has used so far, user and system, in µs (from /proc, clock ticks of 10 ms). */
const cpuOfPid = (pid: number): { user: number; system: number } => cpuOfStatFile(`/proc/${pid}/stat`);

interface Running {
  readonly origin: string;
  readonly pid: number;
  stop(): Promise<void>;
}

async function startServer(route: HttpRouteName, ns: Namespace, server: string): Promise<Running> {
  const prof = values['cpu-prof'];
  const child: ChildProcess = fork(server, [JSON.stringify({ route, ns: ns.info })], {
    execArgv: [...payonceNodeArgs(), ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])],
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const first = await new Promise<ServerMessage>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server ${route} exited with ${code}`)));
    child.once('message', resolve);
  });
  if (first.type !== 'listening') throw new Error(first.type === 'failed' ? first.error : first.type);
  return {
    origin: `http://127.0.0.1:${first.port}`,
    pid: child.pid!,
    async stop() {
      child.removeAllListeners('exit');
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' });
      await exited;
    },
  };
}

type Signed = { headers: Record<string, string>; body: string };

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

interface SideRun {
  readonly opsPerSec: number;
  /** Server CPU per delivery, µs. */
  readonly serverUs: number;
  /** The kernel's part of it (system time: socket reads and writes, epoll), µs per delivery. */
  readonly systemUs: number;
}

/** Warm-up then one timed run of unique deliveries against a fresh server of `route`. */
async function side(route: HttpRouteName, ns: Namespace, tag: string, file: string): Promise<SideRun> {
  await ns.reset();
  const server = await startServer(route, ns, file);
  try {
    const cap = 200_000;
    for (const [prefix, ms] of [
      [`w${tag}-`, warmup],
      [`t${tag}-`, durationMs],
    ] as const) {
      const signed = sign(prefix, Math.min(cap, Math.ceil((ms / 1_000) * 20_000)));
      const pool = new Pool(server.origin, { connections: concurrency, pipelining: 1 });
      const cpuBefore = cpuOfPid(server.pid);
      const sample = await measureUnique(
        async (id) => {
          const request = signed.get(id)!;
          const response = await pool.request({ path: '/webhook', method: 'POST', ...request });
          await response.body.dump();
          if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
          return 'ran';
        },
        signed.size,
        concurrency,
        prefix,
        ms,
      );
      const cpuAfter = cpuOfPid(server.pid);
      const systemUs = (cpuAfter.system - cpuBefore.system) / sample.deliveries;
      const serverUs = (cpuAfter.user - cpuBefore.user) / sample.deliveries + systemUs;
      await pool.close();
      if (sample.errors > 0) throw new Error(`${route}: ${sample.errors} errors, first ${sample.firstError}`);
      if (prefix.startsWith('t')) return { opsPerSec: sample.opsPerSec, serverUs, systemUs };
    }
    throw new Error('unreachable');
  } finally {
    await server.stop();
  }
}

const ns = await createNamespace(backend);
try {
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const a = await side(values.a as HttpRouteName, ns, `${pair}a`, values['a-server'] ?? SERVER);
    const b = await side(values.b as HttpRouteName, ns, `${pair}b`, values['b-server'] ?? SERVER);
    ratios.push(a.opsPerSec / b.opsPerSec);
    cpuRatios.push(a.serverUs / b.serverUs);
    console.log(
      `pair ${pair + 1}: A ${a.opsPerSec.toFixed(0)}/s ${a.serverUs.toFixed(0)} µs (sys ${a.systemUs.toFixed(0)})  ` +
        `B ${b.opsPerSec.toFixed(0)}/s ${b.serverUs.toFixed(0)} µs (sys ${b.systemUs.toFixed(0)})  rate A÷B ${(a.opsPerSec / b.opsPerSec).toFixed(3)}  server CPU A÷B ${(a.serverUs / b.serverUs).toFixed(3)}`,
    );
  }
  const summary = (list: number[]) => {
    const sorted = [...list].sort((x, y) => x - y);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    return `median ${median.toFixed(3)} (min ${sorted[0]!.toFixed(3)} – max ${sorted.at(-1)!.toFixed(3)})`;
  };
  console.log(
    `${backend} ${values.a} ÷ ${values.b}, ${pairs} pairs × ${durationMs} ms: rate ${summary(ratios)}; ` +
      `server CPU per delivery ${summary(cpuRatios)}`,
  );
} finally {
  await ns.drop();
}
