/**
 * The targets `npm run bench` builds from the in-process subjects (`subjects/`) and the HTTP rows
 * (`http/`): the batched concurrency sweep and duplicate storms, the Redis ratios and the fastify
 * adapter (with an A/A row of the bare route against itself: the noise floor of a pair ratio), plus the guard ÷ bare minimum ratios
 * that are still worth tracking. Every target is a pair of sides run alternately in
 * fresh processes (`lib/pairs.ts`); sides warm up for 1 s (the CPU-bound HTTP and Redis unique rows 5 s, the
 * batched sweep 4 s) and time 2 s (storms 1.5 s) unless BENCH_QUICK=1.
 * To keep a full run (with the service and scale targets and the physical limits) near 40 minutes, rows
 * that the batched, Redis and HTTP work does not change are left out: the SQLite guard rows, MemoryStore ÷ @node-idempotency and
 * express-idempotency over HTTP (pure in-process CPU, measured by `ab-guard.ts` / `ab-http.ts`).
 */
import type { HttpRouteName } from '../http/http-routes.js';
import type { BenchBackend } from '../lib/namespaces.js';
import { type PairTarget, quickRun, type SideSpec } from '../lib/side-protocol.js';

const SUBJECT_SIDE = 'lib/subject-side.ts';
const HTTP_SIDE = 'http/http-side.ts';

const BACKEND_NAMES: Record<BenchBackend, string> = {
  memory: 'memory',
  sqlite: 'SQLite (synchronous=FULL)',
  'sqlite-normal': 'SQLite (synchronous=NORMAL)',
  postgres: 'PostgreSQL',
  mysql: 'MariaDB',
  redis: 'Redis',
};

const SUBJECT_LABELS: Record<string, string> = {
  bare: 'bare minimum (claim INSERT/HSETNX, completion UPDATE/HSET on the raw driver)',
  payonce: 'payonce guard.run',
  'payonce-batched': 'payonce guard.run, batched claims and completions',
  'bare-tx': 'bare minimum in one transaction (raw pg)',
  'payonce-tx': 'payonce runInTransaction (+ business INSERT, 1 commit)',
  'node-idempotency': '@node-idempotency/core',
  powertools: '@aws-lambda-powertools/idempotency',
};

/**
 * A side running subject `subject` (`<backend>/<row>`, `subjects/`) under `workload` with `concurrency`
 * callers. `warmupSeconds` overrides the side's 1 s warm-up: the CPU-bound Redis rows warm up for 5 s, so both
 * subjects' code is optimised before the timed part (after 1 s payonce's longer path was still partly in V8's lower
 * tiers; notes/redis.md); the SQL rows wait on commits and keep 1 s, but for the batched sweep
 * (`SWEEP_WARMUP_SECONDS`).
 */
function subjectSide(
  subject: string,
  workload: 'unique' | 'storm',
  concurrency: number,
  warmupSeconds?: number,
): SideSpec {
  const [backend, row] = subject.split('/') as [BenchBackend, string];
  const warmup = warmupSeconds === undefined || quickRun() ? [] : ['--warmup-seconds', String(warmupSeconds)];
  return {
    id: `${subject}@${workload}-c${concurrency}`,
    label: `${SUBJECT_LABELS[row] ?? row} on ${BACKEND_NAMES[backend]}, ${workload === 'unique' ? `unique keys, ${concurrency} concurrent` : `storm of 10 copies, ${concurrency} keys at a time`}`,
    backend,
    script: SUBJECT_SIDE,
    args: ['--subject', subject, '--workload', workload, '--concurrency', String(concurrency), ...warmup],
  };
}

/** Warm-up of the Redis rows' unique workloads, in seconds (see `subjectSide`). */
const REDIS_WARMUP_SECONDS = 5;

/**
 * Pairs of the HTTP rate rows: 8 instead of 6. Their pair ratios spread widest (0.75–0.89 in one run of the memory
 * row: a client, a server and a store share the 2 cores), so the median needs more pairs to settle. Even, so that
 * each side runs first in half of them (`lib/pairs.ts`).
 */
const HTTP_PAIRS = 8;

/** A side running HTTP route `route` on `backend` (8 keep-alive connections, or a storm of 8 keys × 10 copies). */
function httpSide(route: HttpRouteName, backend: BenchBackend, workload: 'unique' | 'storm' = 'unique'): SideSpec {
  return {
    id: `${backend}/http:${route}@${workload}`,
    label: `${route} on ${BACKEND_NAMES[backend]}${workload === 'storm' ? ', storm of 10 copies, 8 keys at a time' : ', 8 connections'}`,
    backend,
    script: HTTP_SIDE,
    args: ['--route', route, '--backend', backend, '--workload', workload],
  };
}

const BATCHED = 'Batched claims';
const REDIS = 'Redis';
const HTTP = 'HTTP adapters';
const GUARD = 'Guard ÷ bare minimum';
const TX = 'runInTransaction';

/**
 * Warm-up of the batched sweep's unique rows (1, 8, 64, 256 callers), in seconds, both sides alike. A side's rate
 * climbs for its first 2.5–3 s (V8 tiering up a path that has run only a few hundred times, fresh connections;
 * notes/batched.md) and the default 1 s timed the one-caller rows inside that ramp, payonce's
 * longer path longer. The bare PostgreSQL side is commit-bound at about 1 000 deliveries a second at every
 * concurrency, so in the rows at 8 callers and more it too was still in its ramp after 1 s, against a batched side
 * that had run many times more deliveries: 4 s for every row of the sweep.
 */
const SWEEP_WARMUP_SECONDS = 4;

/** Batched guard ÷ bare minimum at 1, 8, 64 and 256 concurrent unique deliveries, and a storm. */
function batchedSweep(backend: 'postgres' | 'mysql', at64: number): PairTarget[] {
  const mins: Record<number, number | null> = { 1: 0.9, 8: null, 64: at64, 256: null };
  const sweep = [1, 8, 64, 256].map(
    (c): PairTarget => ({
      id: `${backend}-batched-c${c}`,
      group: BATCHED,
      title: `${BACKEND_NAMES[backend]} batched guard ÷ bare minimum, ${c} concurrent unique deliveries`,
      a: subjectSide(`${backend}/payonce-batched`, 'unique', c, SWEEP_WARMUP_SECONDS),
      b: subjectSide(`${backend}/bare`, 'unique', c, SWEEP_WARMUP_SECONDS),
      min: mins[c] ?? null,
    }),
  );
  const storm: PairTarget = {
    id: `${backend}-batched-storm`,
    group: BATCHED,
    title: `${BACKEND_NAMES[backend]} batched guard ÷ bare minimum, duplicate storm (handler runs == keys in every pair)`,
    a: subjectSide(`${backend}/payonce-batched`, 'storm', 16),
    b: subjectSide(`${backend}/bare`, 'storm', 16),
    min: null,
    exactlyOnce: true,
  };
  return [...sweep, storm];
}

const guardTarget = (backend: BenchBackend, min: number | null): PairTarget => ({
  id: `${backend}-guard`,
  group: GUARD,
  title: `${BACKEND_NAMES[backend]} guard ÷ bare minimum, 8 concurrent unique deliveries`,
  a: subjectSide(`${backend}/payonce`, 'unique', 8),
  b: subjectSide(`${backend}/bare`, 'unique', 8),
  min,
});

export const targets: readonly PairTarget[] = [
  ...batchedSweep('postgres', 3),
  ...batchedSweep('mysql', 2),
  {
    id: 'redis-vs-node-idempotency',
    group: REDIS,
    title: 'Redis payonce ÷ @node-idempotency/core (its Redis adapter), 8 concurrent unique deliveries',
    a: subjectSide('redis/payonce', 'unique', 8, REDIS_WARMUP_SECONDS),
    b: subjectSide('redis/node-idempotency', 'unique', 8, REDIS_WARMUP_SECONDS),
    min: 1.2,
  },
  {
    id: 'redis-vs-bare',
    group: REDIS,
    title: 'Redis payonce ÷ bare HSETNX + HSET, 8 concurrent unique deliveries',
    a: subjectSide('redis/payonce', 'unique', 8, REDIS_WARMUP_SECONDS),
    b: subjectSide('redis/bare', 'unique', 8, REDIS_WARMUP_SECONDS),
    min: 0.95,
  },
  {
    // What `pipelining: 'auto'` (off by default in RedisStore) earns on this host: the same guard, the store
    // measuring corked against uncorked writes, against the store's default. Reported, no goal: on a host where
    // uncorked writes are faster the probe stays uncorked and the ratio is about 1.
    id: 'redis-pipelining-auto',
    group: REDIS,
    title:
      "Redis payonce with pipelining: 'auto' ÷ the same with pipelining off (the default), 8 concurrent unique deliveries",
    a: subjectSide('redis/payonce', 'unique', 8, REDIS_WARMUP_SECONDS),
    b: subjectSide('redis/payonce-uncorked', 'unique', 8, REDIS_WARMUP_SECONDS),
    min: null,
  },
  {
    id: 'redis-storm',
    group: REDIS,
    title: 'Redis payonce ÷ bare HSETNX + HSET, duplicate storm (handler runs == keys in every pair)',
    a: subjectSide('redis/payonce', 'storm', 16),
    b: subjectSide('redis/bare', 'storm', 16),
    min: null,
    exactlyOnce: true,
  },
  ...(['memory', 'redis'] as const).map(
    (backend): PairTarget => ({
      id: `http-fastify-adapter-${backend}`,
      group: HTTP,
      title: `fastify + fastifyIdempotencyKey adapter ÷ bare fastify route, ${BACKEND_NAMES[backend]}, signed webhooks over loopback`,
      a: httpSide('fastify-adapter', backend),
      b: httpSide('fastify-bare', backend),
      min: 0.8,
      pairs: HTTP_PAIRS,
    }),
  ),
  {
    // The noise floor of the HTTP rows: the same side on both ends of every pair, so its median should be 1 and its
    // min–max is what the machine alone moves a pair ratio by (0.77–1.43 over 10 pairs on 2026-12-05).
    id: 'http-noise-floor-memory',
    group: HTTP,
    title: 'noise floor: bare fastify route ÷ the same route, memory (A/A: the spread is the machine, not the code)',
    a: httpSide('fastify-bare', 'memory'),
    b: httpSide('fastify-bare', 'memory'),
    min: null,
    pairs: HTTP_PAIRS,
  },
  {
    id: 'http-fastify-adapter-redis-storm',
    group: HTTP,
    title: 'fastify adapter ÷ bare fastify route on Redis, HTTP duplicate storm (handler runs == keys in every pair)',
    a: httpSide('fastify-adapter', 'redis', 'storm'),
    b: httpSide('fastify-bare', 'redis', 'storm'),
    min: null,
    exactlyOnce: true,
  },
  {
    id: 'http-fastify-adapter-postgres',
    group: HTTP,
    title: 'fastify + fastifyIdempotencyKey adapter ÷ bare fastify route, PostgreSQL',
    a: httpSide('fastify-adapter', 'postgres'),
    b: httpSide('fastify-bare', 'postgres'),
    min: 0.8,
    pairs: HTTP_PAIRS,
  },
  guardTarget('postgres', 0.9),
  guardTarget('mysql', 0.9),
  {
    id: 'postgres-tx',
    group: TX,
    title: 'PostgreSQL runInTransaction (1 commit, + business INSERT) ÷ two-commit bare minimum, 8 concurrent',
    a: subjectSide('postgres/payonce-tx', 'unique', 8),
    b: subjectSide('postgres/bare', 'unique', 8),
    min: 1.5,
  },
];
