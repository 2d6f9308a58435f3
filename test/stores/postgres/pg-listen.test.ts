import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import {
  createPostgresNamespace,
  POSTGRES_TEST_URL,
  type PostgresNamespace,
} from '../../contract/backends/postgres.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('PostgresStore: waiting duplicates are woken by LISTEN/NOTIFY', () => {
  let namespace: PostgresNamespace;
  let owner: PostgresStore;
  let waiting: PostgresStore;
  const application = `payonce-listen-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    namespace = await createPostgresNamespace();
    owner = await PostgresStore.connect(namespace.config);
    await owner.migrate();
    waiting = await PostgresStore.connect({ ...namespace.config, application_name: application });
  });
  afterAll(async () => {
    await waiting?.close();
    await owner?.close();
    await namespace?.drop();
  });

  /** Starts a claim held by `owner` until the returned release is called. */
  async function held(key: RequestKey) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = new IdempotencyGuard(owner).run(key, async () => {
      await gate;
      return { body: `done ${key.externalId}` };
    });
    while ((await owner.find(key)) === null) await sleep(5);
    return { release, run };
  }

  it('keeps ONE listening connection for the store however many duplicates wait', async () => {
    const keys = Array.from({ length: 10 }, () => new RequestKey('listen-test', randomUUID()));
    const claims = await Promise.all(keys.map(held));
    const guard = new IdempotencyGuard(waiting);
    const waiters = keys.map((key) => guard.run(key, async () => ({ body: 'never' }), { waitForInFlightMs: 10_000 }));
    await sleep(300);
    const listening = await query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where application_name = $1 and query like 'LISTEN %'",
      [application],
    );
    expect(Number(listening[0]?.n)).toBe(1);
    for (const claim of claims) claim.release();
    const outcomes = await Promise.all(waiters);
    expect(outcomes.every((o) => o.isReplay)).toBe(true);
    expect(outcomes.map((o) => Buffer.from(o.response.body).toString())).toEqual(
      keys.map((k) => `done ${k.externalId}`),
    );
    await Promise.all(claims.map((c) => c.run));
  });

  it('wakes its waiters when the listening connection is lost, and listens again on the next wait', async () => {
    const key = new RequestKey('listen-test', randomUUID());
    const claim = await held(key);
    const guard = new IdempotencyGuard(waiting);
    const waiter = guard.run(key, async () => ({ body: 'never' }), { waitForInFlightMs: 10_000 });
    await sleep(200);
    await query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and query like 'LISTEN %'",
      [application],
    );
    await sleep(200);
    claim.release();
    const started = performance.now();
    const outcome = await waiter;
    // Re-listening (or the 1 s safety read) answers the waiter; never the 10 s budget.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(outcome.isReplay).toBe(true);
    await claim.run;
    const next = new RequestKey('listen-test', randomUUID());
    const again = await held(next);
    const second = guard.run(next, async () => ({ body: 'never' }), { waitForInFlightMs: 10_000 });
    await sleep(200);
    const relisten = performance.now();
    again.release();
    expect((await second).isReplay).toBe(true);
    expect(performance.now() - relisten).toBeLessThan(500);
    await again.run;
  });
});
