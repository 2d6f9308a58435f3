/**
 * A side (`lib/side-protocol.ts`) for the HTTP rows: one route (`http-routes.ts`) on one backend, served by a
 * server child of its own (`server.ts`) on loopback, driven from this process over keep-alive connections with
 * Standard Webhooks deliveries signed before the timed part:
 *
 *   node --expose-gc --import tsx http/http-side.ts --route fastify-adapter --backend redis \
 *     [--workload unique|storm] [--concurrency 8] [--keys N] [--seconds S] [--warmup-seconds S] [--copies 10]
 *
 * It warms the server up with unique deliveries for `--warmup-seconds` (1 s; 0.2 s quick), then times `unique`
 * (for at most `--seconds`, default 2 s) or a `storm` (`--copies` of each key at once, `--concurrency` keys at a
 * time, handler runs counted by the server, which must equal the keys stormed). The namespace is `BENCH_NS`.
 */
import { measureStorm, measureUnique } from '../lib/measure.js';
import type { BenchBackend } from '../lib/namespaces.js';
import { parseHttpSideArgs } from '../lib/side-args.js';
import { emitSideResult, quickRun, sideNamespace } from '../lib/side-protocol.js';
import { type HttpRouteName, httpRow } from './http-routes.js';
import { client, type Server, sign, signOnTheFly, startServer } from './run-http.js';

const ROUTES: readonly HttpRouteName[] = [
  'fastify-bare',
  'fastify-guard',
  'fastify-adapter',
  'express-bare',
  'express-adapter',
  'express-idempotency',
];

const args = parseHttpSideArgs(process.argv.slice(2), quickRun());
if (!ROUTES.includes(args.route as HttpRouteName)) throw new Error(`unknown --route ${args.route}`);
const row = httpRow(args.route as HttpRouteName, args.backend as BenchBackend);
const ns = sideNamespace(row.backend);
let server: Server | null = null;
try {
  server = await startServer(row.route, ns);
  // The warm-up signs as it goes; its rate sizes the pre-signed set of the timed part (twice what it needs, so a
  // faster timed part is still bounded by time, not by keys).
  const warm = client(server.origin, args.concurrency, signOnTheFly());
  const warmed = await measureUnique(warm.deliver, 1_000_000, args.concurrency, 'w-', args.warmupSeconds * 1_000);
  await warm.close();
  await server.ask({ type: 'reset' });
  const timedMs = args.seconds * 1_000;
  const uniqueKeys = Math.min(args.keys, Math.ceil(warmed.opsPerSec * args.seconds * 2) + 1_000);
  const sample =
    args.workload === 'unique'
      ? await (async () => {
          const http = client(server.origin, args.concurrency, sign('c-', uniqueKeys));
          try {
            return await measureUnique(http.deliver, uniqueKeys, args.concurrency, 'c-', timedMs);
          } finally {
            await http.close();
          }
        })()
      : await (async () => {
          const storm = client(server.origin, args.concurrency * args.copies, sign('s-', args.keys));
          try {
            return await measureStorm(storm.deliver, args.keys, args.copies, args.concurrency, 's-', timedMs);
          } finally {
            await storm.close();
          }
        })();
  const runs = await server.ask({ type: 'runs' });
  const expected = args.workload === 'unique' ? sample.deliveries : sample.deliveries / args.copies;
  process.stderr.write(
    `${row.id} ${args.workload}: ${sample.opsPerSec.toFixed(0)}/s, handler runs ${runs}/${expected}\n`,
  );
  emitSideResult({
    opsPerSec: sample.opsPerSec,
    p50Ms: sample.p50Ms,
    p99Ms: sample.p99Ms,
    operations: sample.deliveries,
    errors: sample.errors,
    firstError: sample.firstError,
    handlerRuns: runs,
    expectedHandlerRuns: expected,
    notes: {
      ran: sample.results.ran,
      inProgress: sample.results['in-progress'],
      elapsedMs: Math.round(sample.elapsedMs),
      connections: args.workload === 'unique' ? args.concurrency : args.concurrency * args.copies,
    },
  });
} finally {
  await server?.stop();
}
