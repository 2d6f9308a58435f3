/**
 * A small stand-in for the harness's pair runner (until `npm run bench -- --only ID` runs bench/targets/service.ts):
 * runs each target's sides alternately A B A B … in fresh processes on one reset PostgreSQL namespace and prints
 * the median of the pair ratios with their min–max.
 *
 *   npx tsx bench/service/run-pairs.ts [--only ID] [--pairs 5]        (BENCH_QUICK=1 for a smoke run)
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createNamespace, type Namespace } from '../lib/namespaces.js';
import type { SideResult, SideSpec } from '../lib/side-protocol.js';
import { targets } from '../targets/service.js';

const { values } = parseArgs({ options: { only: { type: 'string' }, pairs: { type: 'string', default: '5' } } });
const pairs = Number(values.pairs);

function runSide(side: SideSpec, ns: Namespace | null): Promise<SideResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(ns ? { BENCH_NS: JSON.stringify(ns.info) } : {}) };
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', side.script, ...side.args], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${side.id} exited with ${code}`));
      try {
        resolve(JSON.parse(last) as SideResult);
      } catch {
        reject(new Error(`${side.id}: no result line`));
      }
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const target of targets.filter((t) => values.only === undefined || t.id === values.only)) {
  const ns = target.a.backend ? await createNamespace(target.a.backend) : null;
  try {
    const ratios: number[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      await ns?.reset();
      const a = await runSide(target.a, ns);
      await ns?.reset();
      const b = await runSide(target.b, ns);
      const ratio = a.opsPerSec / b.opsPerSec;
      ratios.push(ratio);
      console.log(
        `pair ${pair + 1}: A ${a.opsPerSec.toFixed(0)}/s (p50 ${a.p50Ms.toFixed(2)} p99 ${a.p99Ms.toFixed(2)}, ` +
          `${a.errors} errors, ${JSON.stringify(a.notes)})  B ${b.opsPerSec.toFixed(0)}/s (p50 ${b.p50Ms.toFixed(2)} ` +
          `p99 ${b.p99Ms.toFixed(2)}, ${b.errors} errors, ${JSON.stringify(b.notes)})  ratio ${ratio.toFixed(3)}` +
          `  load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
    const verdict = target.min === null ? '' : median(ratios) >= target.min ? ' MET' : ' MISSED';
    console.log(
      `${target.id}: median ${median(ratios).toFixed(3)}× (min ${Math.min(...ratios).toFixed(3)}, max ` +
        `${Math.max(...ratios).toFixed(3)}, ${pairs} pairs), target ${target.min ?? '—'}${verdict}`,
    );
  } finally {
    await ns?.drop();
  }
}
