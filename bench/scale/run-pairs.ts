/**
 * A small pair-by-pair runner for the scale targets, for use until (and beside) `npm run bench`'s harness: runs each
 * target's sides alternately, A B A B …, each side a fresh process (`node --expose-gc --import tsx <script> <args>`,
 * cwd = repository root) with a freshly reset namespace of its backend in `BENCH_NS`, as `bench/lib/side-protocol.ts`
 * describes; the ratio is the median of the per-pair ratios A ÷ B, printed with its min–max. Calls the targets
 * file's `prepare()` before the first pair and `cleanup()` after the last, and drops its namespaces, also when a
 * side fails or the run is interrupted (SIGINT/SIGTERM).
 *
 *   npx tsx bench/scale/run-pairs.ts [--only postgres-1m-receipts,mysql-1m-receipts] [--pairs 5] [--keep-seeded]
 *
 * `--keep-seeded` skips `cleanup()` (to rerun quickly; drop later with `--cleanup-only`).
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { spread } from '../lib/measure.js';
import { type BenchBackend, createNamespace, type Namespace } from '../lib/namespaces.js';
import type { PairTarget, SideResult, SideSpec } from '../lib/side-protocol.js';
import { cleanup, prepare, targets } from '../targets/scale.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Runs one side in a fresh process; resolves with its result line. @throws when it exits non-zero or prints none. */
function runSide(side: SideSpec, ns: Namespace | null): Promise<SideResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', side.script, ...side.args], {
      cwd: process.cwd(),
      env: { ...process.env, ...(ns ? { BENCH_NS: JSON.stringify(ns.info) } : {}) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${side.id} exited ${code}`));
      try {
        resolve(JSON.parse(last) as SideResult);
      } catch {
        reject(new Error(`${side.id} printed no result line: ${last.slice(0, 200)}`));
      }
    });
  });
}

const fmt = (n: number) => n.toFixed(2);

/** Runs `pairs` pairs of `target`; returns the summary line. */
async function runTarget(target: PairTarget, pairs: number, namespaces: Map<BenchBackend, Namespace>) {
  const nsOf = async (side: SideSpec): Promise<Namespace | null> => {
    if (side.backend === null) return null;
    let ns = namespaces.get(side.backend);
    if (!ns) {
      ns = await createNamespace(side.backend);
      namespaces.set(side.backend, ns);
    }
    await ns.reset();
    return ns;
  };
  const ratios: number[] = [];
  const errors: string[] = [];
  for (let pair = 1; pair <= pairs; pair++) {
    try {
      const a = await runSide(target.a, await nsOf(target.a));
      const b = await runSide(target.b, await nsOf(target.b));
      const ratio = a.opsPerSec / b.opsPerSec;
      ratios.push(ratio);
      if (a.errors + b.errors > 0) errors.push(`pair ${pair}: ${a.firstError ?? b.firstError}`);
      log(
        `  ${target.id} pair ${pair}/${pairs}: A ${a.opsPerSec.toFixed(0)}/s (p50 ${fmt(a.p50Ms)} ms, p99 ${fmt(a.p99Ms)} ms, ` +
          `${JSON.stringify(a.notes)})  B ${b.opsPerSec.toFixed(0)}/s (p50 ${fmt(b.p50Ms)} ms, p99 ${fmt(b.p99Ms)} ms)  ` +
          `A÷B ${fmt(ratio)}`,
      );
    } catch (error) {
      errors.push(`pair ${pair}: ${error instanceof Error ? error.message : String(error)}`);
      log(`  ${target.id} pair ${pair}/${pairs}: FAILED ${errors.at(-1)}`);
    }
  }
  const s = spread(ratios);
  const met = target.min === null ? '' : s.median >= target.min ? ' met' : ` MISSED (target ≥ ${target.min})`;
  return `${target.id}: ${fmt(s.median)}× (min ${fmt(s.min)}, max ${fmt(s.max)}, ${ratios.length} pairs)${met}${
    errors.length > 0 ? `; errors: ${errors.join('; ')}` : ''
  }`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      pairs: { type: 'string', default: '5' },
      'keep-seeded': { type: 'boolean', default: false },
      'cleanup-only': { type: 'boolean', default: false },
    },
  });
  if (values['cleanup-only']) return cleanup(log);
  const ids = values.only?.split(',').map((id) => id.trim());
  const chosen = ids ? targets.filter((t) => ids.includes(t.id)) : targets;
  if (chosen.length === 0) throw new Error(`no target matches --only ${values.only}`);
  const pairs = Number(values.pairs);
  const namespaces = new Map<BenchBackend, Namespace>();
  let interrupted = false;
  const finish = async () => {
    for (const ns of namespaces.values()) await ns.drop().catch(() => {});
    if (!values['keep-seeded']) await cleanup(log);
  };
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    log('interrupted: cleaning up');
    void finish().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await prepare(
      log,
      chosen.map((t) => t.id),
    );
    const lines: string[] = [];
    for (const target of chosen) {
      if (interrupted) break;
      log(`${target.id}: ${target.title}`);
      lines.push(await runTarget(target, pairs, namespaces));
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    if (!interrupted) await finish();
  }
}

await main();
