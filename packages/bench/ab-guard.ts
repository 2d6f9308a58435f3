/**
 * Interleaved A/B of `guard.run` on MemoryStore (pure in-process CPU) between two source trees in ONE process, so
 * the load of other work on the machine hits both sides alike; prints each side's CPU time per delivery
 * (`process.cpuUsage`, user + system, GC included: robust to time slicing by other processes) per round and the
 * median ratio B ÷ A (below 1 = B is cheaper). For judging a change to src/core or src/stores/memory on a busy machine:
 *   git archive HEAD src | tar -x -C /tmp/base   # A = the last commit
 *   node --expose-gc --import tsx ab-guard.ts /tmp/base/src src 10 20000
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dirA = '/tmp/base/src', dirB = 'src', roundsText = '8', keysText = '20000'] = process.argv.slice(2);

interface Side {
  readonly name: string;
  readonly deliver: (id: string) => Promise<unknown>;
}

async function side(name: string, dir: string): Promise<Side> {
  const url = (path: string) => pathToFileURL(resolve(dir, path)).href;
  const { IdempotencyGuard } = await import(url('core/idempotency-guard.ts'));
  const { RequestKey } = await import(url('core/request-key.ts'));
  const { MemoryStore } = await import(url('stores/memory/memory-store.ts'));
  let guard = new IdempotencyGuard(new MemoryStore());
  const response = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' };
  return {
    name,
    deliver: (id: string) => {
      if (id === 'reset') guard = new IdempotencyGuard(new MemoryStore());
      return guard.run(new RequestKey('bench', id), () => response, {
        payload: `{"id":"${id}","type":"payment.succeeded","amount":4200}`,
      });
    },
  };
}

async function round(s: Side, keys: number, prefix: string): Promise<number> {
  await s.deliver('reset');
  // The other side's garbage is collected before this side is timed (run with --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  let next = 0;
  const started = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < keys; i = next++) await s.deliver(`${prefix}${i}`);
    }),
  );
  const used = process.cpuUsage(started);
  return (used.user + used.system) / keys;
}

const a = await side('A', dirA);
const b = await side('B', dirB);
const keys = Number(keysText);
await round(a, keys, 'w');
await round(b, keys, 'w');
const ratios: number[] = [];
for (let r = 0; r < Number(roundsText); r++) {
  const first = r % 2 === 0 ? a : b;
  const second = first === a ? b : a;
  const x = await round(first, keys, `r${r}`);
  const y = await round(second, keys, `r${r}`);
  const [rateA, rateB] = first === a ? [x, y] : [y, x];
  ratios.push(rateB / rateA);
  console.log(`round ${r}: A ${rateA.toFixed(2)} µs  B ${rateB.toFixed(2)} µs  B/A ${(rateB / rateA).toFixed(3)}`);
}
ratios.sort((p, q) => p - q);
console.log(`median B/A ${ratios[Math.floor(ratios.length / 2)]!.toFixed(3)} over ${ratios.length} rounds`);
