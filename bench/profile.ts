/**
 * Runs workload (a) for one in-process row, for CPU profiling:
 *   node --cpu-prof --cpu-prof-dir=bench/profiles --import tsx bench/profile.ts sqlite-normal/payonce 10000
 * The profiles that explain a missed target are kept in `bench/profiles/` (see its README).
 */
import { measureUnique } from './lib/measure.js';
import { type BenchBackend, createNamespace } from './lib/namespaces.js';
import type { Subject } from './lib/subject.js';
import { bareSubject } from './subjects/bare.js';
import { payonceSubject, payonceTransactionSubject } from './subjects/payonce.js';
import { nodeIdempotencyMemory, nodeIdempotencyRedis, powertoolsRedis } from './subjects/peers.js';

const [id = 'sqlite-normal/payonce', opsText = '10000'] = process.argv.slice(2);
const [backendName, row] = id.split('/') as [BenchBackend, string];
const peers: Subject[] = [payonceTransactionSubject(), nodeIdempotencyMemory, nodeIdempotencyRedis, powertoolsRedis];
const subject =
  row === 'bare'
    ? bareSubject(backendName)
    : row === 'payonce'
      ? payonceSubject(backendName)
      : peers.find((s) => s.id === id);
if (!subject) throw new Error(`unknown row ${id}`);
const ns = await createNamespace(subject.backend);
try {
  const deliverer = await subject.open(ns.info, { runs: 0 });
  try {
    await measureUnique((key) => deliverer.deliver(key), 500, 8, 'w-');
    await ns.reset();
    const sample = await measureUnique((key) => deliverer.deliver(key), Number(opsText), 8, 'a-');
    console.log(
      `${id}: ${sample.opsPerSec.toFixed(0)} ops/s, p50 ${sample.p50Ms.toFixed(2)} ms, p99 ${sample.p99Ms.toFixed(2)} ms`,
    );
  } finally {
    await deliverer.close();
  }
} finally {
  await ns.drop();
}
