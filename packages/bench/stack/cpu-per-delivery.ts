/**
 * Client CPU per delivery of every stack side (`sides/`) and of `own`, in one process, round after round: the
 * measure behind notes/stack.md, steadier than a rate on a busy host (CPU time is the process's own, whatever else
 * runs). Run from packages/bench after `npm run build` at the root:
 *   npx tsx stack/cpu-per-delivery.ts [rounds=6] [deliveries=2000] [side …]
 * Prints, per side, the median over rounds of (user + system CPU) ÷ deliveries, in µs, at 16 concurrent callers.
 * With side names after the numbers (`own`, keys of `sides/index.ts`), only those sides run (`own` always).
 */

import { measureUnique } from '../lib/measure.js';
import { createNamespace } from '../lib/namespaces.js';
import { STACK_CONCURRENCY } from '../targets/stack.js';
import { STACK_SIDES } from './sides/index.js';
import { stackSubject } from './stack-subject.js';

const [roundsText = '6', deliveriesText = '2000', ...chosen] = process.argv.slice(2);
const rounds = Number(roundsText);
const deliveries = Number(deliveriesText);
const names = ['own', ...(chosen.length > 0 ? chosen.filter((name) => name !== 'own') : Object.keys(STACK_SIDES))];
const ns = await createNamespace('postgres');
try {
  const opened = [];
  for (const name of names) opened.push({ name, deliverer: await stackSubject(name).open(ns.info, { runs: 0 }) });
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (const { deliverer } of opened)
    await measureUnique((id) => deliverer.deliver(id), 1_000, STACK_CONCURRENCY, 'w-');
  for (let round = 0; round < rounds; round++) {
    for (const { name, deliverer } of opened) {
      await ns.reset();
      const before = process.cpuUsage();
      const sample = await measureUnique((id) => deliverer.deliver(id), deliveries, STACK_CONCURRENCY, `r${round}-`);
      const used = process.cpuUsage(before);
      if (sample.errors > 0) throw new Error(`${name}: ${sample.firstError}`);
      cpu[name]!.push((used.user + used.system) / sample.deliveries);
    }
  }
  for (const { deliverer } of opened) await deliverer.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  for (const name of names) {
    const values = cpu[name]!;
    process.stdout.write(
      `${name.padEnd(10)} ${median(values).toFixed(0).padStart(5)} µs CPU per delivery (rounds: ${values.map((v) => v.toFixed(0)).join(' ')})\n`,
    );
  }
} finally {
  await ns.drop();
}
