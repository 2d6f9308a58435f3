/**
 * The batched-claims sweep of issue #17 until the pair harness runs it: for each backend and concurrency, A =
 * `<backend>/payonce-batched` and B = `<backend>/bare` run alternately (A B A B …), each side in a fresh process
 * (`bench/batched/side.ts`) on a freshly truncated namespace; the ratio is the median of the pair ratios with its
 * min–max. `node --import tsx bench/batched/sweep.ts [pairs] [backends] [concurrencies]`, e.g. `5 postgres,mysql
 * 1,8,64,256`. Writes nothing but stdout.
 */
import { spawn } from 'node:child_process';
import { type BenchBackend, createNamespace } from '../lib/namespaces.js';
import type { SideResult } from '../lib/side-protocol.js';

const [
  pairsArg = '5',
  backendsArg = 'postgres,mysql',
  concurrencyArg = '1,8,64,256',
  aRow = 'payonce-batched',
  bRow = 'bare',
] = process.argv.slice(2);
const pairs = Number(pairsArg);

function side(id: string, concurrency: number, nsJson: string): Promise<SideResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/batched/side.ts', id, String(concurrency)],
      {
        env: { ...process.env, BENCH_NS: nsJson },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`${id} exited ${code}`));
      else resolve(JSON.parse(last) as SideResult);
    });
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

console.log(`# ${new Date().toISOString()} pairs=${pairs}`);
for (const backend of backendsArg.split(',') as BenchBackend[]) {
  const ns = await createNamespace(backend);
  try {
    for (const concurrency of concurrencyArg.split(',').map(Number)) {
      const ratios: number[] = [];
      const rates: { a: number[]; b: number[] } = { a: [], b: [] };
      for (let i = 0; i < pairs; i++) {
        await ns.reset();
        const a = await side(`${backend}/${aRow}`, concurrency, JSON.stringify(ns.info));
        await ns.reset();
        const b = await side(`${backend}/${bRow}`, concurrency, JSON.stringify(ns.info));
        if (a.errors > 0 || b.errors > 0)
          console.log(`  errors: a=${a.errors} ${a.firstError} b=${b.errors} ${b.firstError}`);
        ratios.push(a.opsPerSec / b.opsPerSec);
        rates.a.push(a.opsPerSec);
        rates.b.push(b.opsPerSec);
        console.error(
          `${backend} c${concurrency} pair ${i + 1}: ${a.opsPerSec.toFixed(0)} / ${b.opsPerSec.toFixed(0)} = ${(a.opsPerSec / b.opsPerSec).toFixed(2)} (p50 ${a.p50Ms.toFixed(2)} / ${b.p50Ms.toFixed(2)} ms)`,
        );
      }
      console.log(
        `| ${backend} | ${concurrency} | ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${median(rates.a).toFixed(0)} | ${median(rates.b).toFixed(0)} |`,
      );
    }
  } finally {
    await ns.drop();
  }
}
