/**
 * Interleaved A/B of `guard.run` on a real store (Redis, or a SQLite file at synchronous=FULL or NORMAL) between two
 * source trees in ONE process, 8 concurrent callers, each side on its own namespace opened with the store's static
 * factory and default options (`RedisStore.connect`, `SqliteStore.open`), as an application would. Prints per round
 * each side's deliveries/s (wall) and CPU per delivery (`process.cpuUsage`), then the median ratio B ÷ A of both.
 * A side may also be `bare`: the hand-written bare minimum of `subjects/bare.ts` on the same backend. More source
 * trees (or `bare`) after the key count join the rotation as sides C, D…, each compared with A.
 *   mkdir -p /tmp/base && git archive HEAD src | tar -x -C /tmp/base   # A = the last commit
 *   ln -s "$PWD/node_modules" /tmp/base/node_modules                  # its imports of kysely, ioredis resolve
 *   node --expose-gc --import tsx ab-store.ts redis /tmp/base/src src 8 10000
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BenchBackend, createNamespace, type Namespace } from './lib/namespaces.js';
import { HANDLER_RESPONSE, payloadOf } from './lib/subject.js';
import { bareTransactionSubject, openBare } from './subjects/bare.js';

const [backendText = 'redis', dirA = '/tmp/base/src', dirB = 'src', roundsText = '8', keysText = '10000'] =
  process.argv.slice(2);
/** `postgres-tx`: `runInTransaction` + a business INSERT (the `postgres/payonce-tx` row) against `postgres/bare-tx`. */
const transactional = backendText === 'postgres-tx';
const backend = (transactional ? 'postgres' : backendText) as BenchBackend;

interface Side {
  readonly name: string;
  readonly ns: Namespace;
  deliver(id: string): Promise<unknown>;
  close(): Promise<void>;
}

async function side(name: string, dir: string): Promise<Side> {
  const ns = await createNamespace(backend);
  if (dir === 'bare') {
    const bare = transactional
      ? await bareTransactionSubject().open(ns.info, { runs: 0 })
      : await openBare(ns.info, { runs: 0 });
    return { name, ns, deliver: (id) => bare.deliver(id), close: () => bare.close() };
  }
  const url = (path: string) => pathToFileURL(resolve(dir, path)).href;
  const { IdempotencyGuard } = await import(url('core/idempotency-guard.ts'));
  const { RequestKey } = await import(url('core/request-key.ts'));
  let store: { close(): Promise<void> };
  if (transactional) {
    const { PostgresStore } = await import(url('stores/postgres/postgres-store.ts'));
    const pgStore = await PostgresStore.connect({ ...ns.info.postgres!, max: 10 });
    const guard = new IdempotencyGuard(pgStore);
    type Trx = { insertInto(t: string): { values(v: object): { execute(): Promise<unknown> } } };
    return {
      name,
      ns,
      deliver: (id) =>
        pgStore.db.transaction().execute((tx: Trx) =>
          guard.runInTransaction(
            tx,
            new RequestKey('bench', id),
            async (trx: Trx) => {
              await trx.insertInto('bench_ledger').values({ event_id: id, amount: 4200 }).execute();
              return HANDLER_RESPONSE;
            },
            { payload: payloadOf(id) },
          ),
        ),
      close: () => pgStore.close(),
    };
  }
  if (backend === 'redis') {
    const { RedisStore } = await import(url('stores/redis/redis-store.ts'));
    store = await RedisStore.connect(ns.info.redis!.url, { prefix: ns.info.redis!.prefix });
  } else {
    const { SqliteStore } = await import(url('stores/sqlite/sqlite-store.ts'));
    const { path, synchronousNormal } = ns.info.sqlite!;
    store = await SqliteStore.open(path, { unsafeSynchronousNormal: synchronousNormal });
  }
  const guard = new IdempotencyGuard(store);
  return {
    name,
    ns,
    deliver: (id) => guard.run(new RequestKey('bench', id), () => HANDLER_RESPONSE, { payload: payloadOf(id) }),
    close: () => store.close(),
  };
}

interface Measured {
  readonly opsPerSec: number;
  readonly cpuUs: number;
}

async function round(s: Side, keys: number, prefix: string): Promise<Measured> {
  await s.ns.reset();
  (globalThis as { gc?: () => void }).gc?.();
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < keys; i = next++) await s.deliver(`${prefix}${i}`);
    }),
  );
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { opsPerSec: (keys / elapsed) * 1_000, cpuUs: (used.user + used.system) / keys };
}

const median = (values: number[]): number => [...values].sort((p, q) => p - q)[Math.floor(values.length / 2)]!;

const extra = process.argv.slice(7);
const sides = [await side('A', dirA), await side('B', dirB)];
for (const [i, dir] of extra.entries()) sides.push(await side(String.fromCharCode(67 + i), dir));
try {
  const keys = Number(keysText);
  for (const s of sides) await round(s, Math.min(keys, 2_000), 'w');
  const rate = sides.map((): number[] => []);
  const cpu = sides.map((): number[] => []);
  for (let r = 0; r < Number(roundsText); r++) {
    // Rotate the order every round so no side always runs first.
    const measured = new Array<Measured>(sides.length);
    for (let j = 0; j < sides.length; j++) {
      const i = (r + j) % sides.length;
      measured[i] = await round(sides[i]!, keys, `r${r}-`);
    }
    const [base] = measured as [Measured];
    const line = sides.map((s, i) => {
      const m = measured[i]!;
      rate[i]!.push(m.opsPerSec / base.opsPerSec);
      cpu[i]!.push(m.cpuUs / base.cpuUs);
      return `${s.name} ${m.opsPerSec.toFixed(0)}/s ${m.cpuUs.toFixed(1)} µs`;
    });
    console.log(`round ${r}: ${line.join('  ')}`);
  }
  for (let i = 1; i < sides.length; i++) {
    const name = sides[i]!.name;
    console.log(
      `median rate ${name}/A ${median(rate[i]!).toFixed(3)}, median CPU per delivery ${name}/A ${median(cpu[i]!).toFixed(3)}`,
    );
  }
} finally {
  for (const s of sides) {
    await s.close();
    await s.ns.drop();
  }
}
