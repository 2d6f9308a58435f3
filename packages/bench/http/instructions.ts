/**
 * Instructions per request of the in-process fastify sides of `ab-inproc.ts`, counted by valgrind's cachegrind
 *. A count of executed instructions does not depend on how fast the shared machine is at
 * that minute, so two sides compared this way differ only by their code (CPU time per request moved 1.5× within
 * one run on 2026-12-05; the counts of one side moved less than 2 % between runs). It misses what instructions do
 * not show: cache misses (a large `Map`), system call latency, lock waits.
 *
 * Each side runs twice under `valgrind --tool=cachegrind --cache-sim=no`, in a process of its own, once with
 * `--small` requests and once with `--large`; the difference of the two totals over the difference of the request
 * counts is the cost of one more request, with start-up, module loading and most JIT compilation cancelled out (keep
 * `--small` at 4 000 or more: with 2 000 / 8 000 the adapter read 269 k and 278 k in two runs, 198–210 k with the
 * defaults, because V8 was still optimising inside the window). It
 * counts every thread (V8's GC and compiler threads included) and the raw-socket client of `ab-inproc.ts`, which is
 * the same for every side. A major GC that falls inside one of the two runs and not the other moves a side by up to
 * ~8 %; repeat a side when two sides differ by less than that. Two processes run at a time (one per core).
 *   node --import tsx http/instructions.ts bare hooks guard:. . [--small 4000] [--large 16000]
 * Needs `valgrind` on PATH; takes about a minute per side (valgrind runs Node ~50× slower).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals: sides } = parseArgs({
  allowPositionals: true,
  options: { small: { type: 'string', default: '4000' }, large: { type: 'string', default: '16000' } },
});
if (sides.length === 0) throw new Error('usage: instructions.ts SIDE [SIDE…] [--small N] [--large N]');
const small = Number(values.small);
const large = Number(values.large);
if (!Number.isInteger(small) || !Number.isInteger(large) || small < 1 || large <= small) {
  throw new Error('--small and --large must be integers with 0 < small < large');
}

const AB_INPROC = fileURLToPath(new URL('./ab-inproc.ts', import.meta.url));

/** Total instructions (all threads) of one `ab-inproc.ts` process running `requests` requests on `side`. */
function instructions(side: string, requests: number): Promise<number> {
  const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null'];
  args.push(process.execPath, '--import', 'tsx', AB_INPROC, '0', String(requests), side);
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NODE_ENV: 'production' };
    execFile('valgrind', args, { env, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const total = /I\s+refs:\s+([\d,]+)/.exec(stderr)?.[1];
      if (error || total === undefined) return reject(new Error(`valgrind on ${side} failed: ${error ?? stderr}`));
      resolve(Number(total.replaceAll(',', '')));
    });
  });
}

/** Instructions of one more request on `side`: the two runs' difference over their request counts' difference. */
async function perRequest(side: string): Promise<number> {
  const [few, many] = await Promise.all([instructions(side, small), instructions(side, large)]);
  return (many - few) / (large - small);
}

const counts: number[] = [];
for (const side of sides) {
  counts.push(await perRequest(side));
  const ratio = counts.at(-1)! / counts[0]!;
  console.log(`${side}: ${(counts.at(-1)! / 1000).toFixed(1)} k instructions per request, ÷ first ${ratio.toFixed(3)}`);
}
