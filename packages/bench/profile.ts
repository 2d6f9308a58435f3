/**
 * Runs workload (a) for one in-process row, for CPU profiling:
 *   node --cpu-prof --cpu-prof-dir=profiles --import tsx profile.ts sqlite-normal/payonce 10000
 * Profiles are not committed (profiles/ is gitignored); notes/profiles.md says what earlier ones showed.
 */
import { measureUnique } from './lib/measure.js';
import { createNamespace } from './lib/namespaces.js';
import { loadSubject } from './subjects/load-subject.js';

const [id = 'sqlite-normal/payonce', opsText = '10000'] = process.argv.slice(2);
const subject = await loadSubject(id);
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
