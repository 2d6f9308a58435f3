/**
 * Where a webhook route's server spends its CPU, per request, counted by the kernel rather than sampled by V8
 *. Runs each route of `http/server.ts` in a fresh server child, alternately for `--rounds`
 * rounds, drives it with pre-signed unique deliveries over 8 keep-alive connections (undici) after an untimed
 * warm-up, and prints the server's CPU per request for every thread (from /proc/PID/task: user + system), and
 * its system part. V8's `--cpu-prof` samples only the main thread's JavaScript by wall clock, so it misses the GC
 * and compiler threads, counts a blocked `writev` as work and cannot see the kernel; this tool can.
 *
 * With `--perf DIR` it also records the server's timed part with Linux `perf` (`perf record -g -p PID`, the server
 * started with `--perf-basic-prof` so JIT frames have names) and prints, per route, the symbols with the most
 * samples per 1 000 requests, and for the first two routes the symbols whose share grew most from the second to
 * the first.
 *   node --import tsx http/server-cpu.ts fastify-adapter fastify-bare [--backend memory] [--rounds 3]
 *     [--warmup-ms 2000] [--ms 5000] [--perf /tmp/perf-out]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measureUnique, spread } from '../lib/measure.js';
import { type BenchBackend, createNamespace, type Namespace } from '../lib/namespaces.js';
import { cpuOfStatFile } from '../lib/proc-cpu.js';
import type { HttpRouteName } from './http-routes.js';
import { client, type Server, sign, startServer } from './run-http.js';

const { values, positionals: routes } = parseArgs({
  allowPositionals: true,
  options: {
    backend: { type: 'string', default: 'memory' },
    rounds: { type: 'string', default: '3' },
    'warmup-ms': { type: 'string', default: '2000' },
    ms: { type: 'string', default: '5000' },
    perf: { type: 'string' },
  },
});
if (routes.length === 0) throw new Error('usage: server-cpu.ts ROUTE [ROUTE…] [--backend B] [--rounds N] [--perf DIR]');
const CONNECTIONS = 8;
/** CPU used so far by each thread of `pid`, in µs: user and system. */
function threadTimes(pid: number): Map<string, { user: number; system: number }> {
  const times = new Map<string, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) times.set(tid, cpuOfStatFile(`/proc/${pid}/task/${tid}/stat`));
  return times;
}

interface RouteRun {
  readonly route: string;
  readonly perSecond: number;
  readonly requests: number;
  /** µs per request: all threads, the main thread, every other thread, the system part of all. */
  readonly totalUs: number;
  readonly mainUs: number;
  readonly otherUs: number;
  readonly systemUs: number;
  readonly perfFile: string | null;
}

/** Starts `perf record` on `pid` into `file`; the returned function stops it and waits for the file. */
function startPerf(pid: number, file: string): () => Promise<void> {
  const perf = spawn('perf', ['record', '-q', '-F', '1999', '-g', '-o', file, '-p', String(pid)], { stdio: 'ignore' });
  return async () => {
    const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
    perf.kill('SIGINT');
    await exited;
  };
}

async function timedRun(server: Server, route: string, ms: number, perfFile: string | null): Promise<RouteRun> {
  const signed = sign(`t-${route}-`, Math.ceil((ms / 1_000) * 40_000));
  const http = client(server.origin, CONNECTIONS, signed);
  const stopPerf = perfFile ? startPerf(server.pid, perfFile) : null;
  if (stopPerf) await new Promise((resolve) => setTimeout(resolve, 300)); // perf attaches
  const before = threadTimes(server.pid);
  const sample = await measureUnique(http.deliver, signed.size, CONNECTIONS, `t-${route}-`, ms);
  const after = threadTimes(server.pid);
  await stopPerf?.();
  await http.close();
  let main = 0;
  let other = 0;
  let system = 0;
  for (const [tid, end] of after) {
    const start = before.get(tid) ?? { user: 0, system: 0 };
    const used = end.user - start.user + end.system - start.system;
    if (tid === String(server.pid)) main += used;
    else other += used;
    system += end.system - start.system;
  }
  const n = sample.deliveries;
  if (sample.errors > 0) throw new Error(`${route}: ${sample.errors} errors, first ${sample.firstError}`);
  return {
    route,
    perSecond: sample.opsPerSec,
    requests: n,
    totalUs: (main + other) / n,
    mainUs: main / n,
    otherUs: other / n,
    systemUs: system / n,
    perfFile,
  };
}

async function measureRoute(route: HttpRouteName, ns: Namespace, round: number): Promise<RouteRun> {
  await ns.reset();
  const perfDir = values.perf ?? null;
  // --perf-basic-prof names JIT frames for perf (/tmp/perf-PID.map); V8 then also writes a log, kept in the perf folder.
  const nodeArgs = perfDir
    ? ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(perfDir, `${route}.${round}.v8.log`)}`]
    : [];
  const server = await startServer(route, ns.info, nodeArgs);
  try {
    const warm = client(server.origin, CONNECTIONS, sign(`w-${route}-`, 60_000));
    await measureUnique(warm.deliver, 60_000, CONNECTIONS, `w-${route}-`, Number(values['warmup-ms']));
    await warm.close();
    const perfFile = perfDir ? join(perfDir, `${route}.${round}.perf.data`) : null;
    return await timedRun(server, route, Number(values.ms), perfFile);
  } finally {
    await server.stop();
  }
}

/** Samples per 1 000 requests of each symbol in `run`'s perf file. */
function symbolsOf(run: RouteRun): Map<string, number> {
  const report = execFileSync(
    'perf',
    ['report', '-i', run.perfFile!, '--no-children', '--sort', 'sym', '-g', 'none', '-n', '-q'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const symbols = new Map<string, number>();
  for (const line of report.split('\n')) {
    const match = /^\s*[\d.]+%\s+(\d+)\s+\[[^\]]*\]\s+(.*)$/.exec(line);
    if (!match) continue;
    const name = match[2]!.trim();
    symbols.set(name, (symbols.get(name) ?? 0) + (Number(match[1]) * 1_000) / run.requests);
  }
  return symbols;
}

function printPerf(runs: readonly RouteRun[]): void {
  const last = new Map(runs.map((run) => [run.route, run]));
  const tables = [...last.values()].map((run) => ({ run, symbols: symbolsOf(run) }));
  for (const { run, symbols } of tables) {
    const total = [...symbols.values()].reduce((sum, n) => sum + n, 0);
    console.log(`\nperf, ${run.route} (last round): ${total.toFixed(1)} samples per 1 000 requests at 1 999 Hz`);
    for (const [name, n] of [...symbols].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      console.log(`${n.toFixed(2).padStart(8)}  ${name.slice(0, 110)}`);
    }
  }
  if (tables.length < 2) return;
  const [a, b] = tables as [(typeof tables)[0], (typeof tables)[0]];
  console.log(`\nperf, samples per 1 000 requests: ${a.run.route} minus ${b.run.route}, largest growth first`);
  const names = new Set([...a.symbols.keys(), ...b.symbols.keys()]);
  const growth = [...names].map((name) => [name, (a.symbols.get(name) ?? 0) - (b.symbols.get(name) ?? 0)] as const);
  for (const [name, delta] of growth.sort((x, y) => y[1] - x[1]).slice(0, 30)) {
    const cells = `${delta.toFixed(2).padStart(8)} ${(a.symbols.get(name) ?? 0).toFixed(2).padStart(8)} ${(b.symbols.get(name) ?? 0).toFixed(2).padStart(8)}`;
    console.log(`${cells}  ${name.slice(0, 100)}`);
  }
}

const backend = values.backend as BenchBackend;
if (values.perf) mkdirSync(values.perf, { recursive: true });
const ns = await createNamespace(backend);
const runs: RouteRun[] = [];
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const route of routes) {
      const run = await measureRoute(route as HttpRouteName, ns, round);
      runs.push(run);
      console.log(
        `round ${round} ${backend}/${route}: ${run.perSecond.toFixed(0)}/s, server CPU ${run.totalUs.toFixed(1)} µs per ` +
          `request (main thread ${run.mainUs.toFixed(1)}, other threads ${run.otherUs.toFixed(1)}; system ${run.systemUs.toFixed(1)})`,
      );
    }
  }
  for (const route of routes) {
    const { median, min, max } = spread(runs.filter((run) => run.route === route).map((run) => run.totalUs));
    console.log(
      `${backend}/${route}: server CPU per request, median ${median.toFixed(1)} µs (${min.toFixed(1)}–${max.toFixed(1)})`,
    );
  }
  if (values.perf) printPerf(runs);
} finally {
  await ns.drop();
}
