import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../../packages/payonce/src/core/request-key.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../../outbox/sql-backends.js';

// Issue 40: `PostgresStore.connect(…, { preparedStatements: true })` sends payonce's statements as named prepared
// statements (parsed and planned once per connection). What a caller sees must not change: claims, replays,
// transactions, and the application's own queries through the store's Kysely.

const BASE = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe.skipIf(!sqlDialectsFromEnv().includes('postgres'))('postgres: preparedStatements', () => {
  let backend: SqlBackend;
  let store: PostgresStore<unknown>;
  beforeAll(async () => {
    backend = await createSqlBackend('postgres');
    store = await PostgresStore.connect<unknown>(
      { connectionString: BASE, options: `-c search_path=${backend.target}`, max: 3 },
      { preparedStatements: true },
    );
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await backend?.drop();
  });

  /** The named statements the server holds for the connections of this store's schema, by text. */
  const preparedTexts = async () => {
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(store.db);
    return rows.map((row) => row.statement);
  };

  it('prepares each statement once per connection and answers as before: run, replay, transaction', async () => {
    const guard = new IdempotencyGuard(store);
    const keys = Array.from({ length: 12 }, () => new RequestKey('prepared', randomUUID()));
    const runs = await Promise.all(keys.map((key) => guard.run(key, () => ({ body: key.externalId }))));
    expect(runs.every((outcome) => !outcome.isReplay)).toBe(true);
    const replays = await Promise.all(keys.map((key) => guard.run(key, () => ({ body: 'never' }))));
    for (const [i, replay] of replays.entries()) {
      expect(replay.isReplay).toBe(true);
      expect(new TextDecoder().decode(replay.response.body)).toBe(keys[i]!.externalId);
    }
    const inTx = new RequestKey('prepared', randomUUID());
    const outcome = await guard.runInNewTransaction(inTx, async () => ({ body: 'in a transaction' }));
    expect(outcome.isReplay).toBe(false);
    expect(await store.find(inTx)).toMatchObject({ status: 'completed' });
    // The connection this read runs on prepared payonce's claim (a statement with parameters, named by the store).
    await guard.run(new RequestKey('prepared', randomUUID()), () => ({ body: 'x' }));
    const texts = await preparedTexts();
    expect(texts.some((text) => /insert into .*payonce_receipts/i.test(text))).toBe(true);
  });

  it("runs the application's own parameterized queries through the store's Kysely, and ones that fail", async () => {
    await sql`create table prepared_rows (k text primary key)`.execute(store.db);
    for (let i = 0; i < 5; i++) {
      await sql`insert into prepared_rows (k) values (${`row-${i}`})`.execute(store.db);
    }
    await expect(sql`insert into prepared_rows (k) values (${'row-0'})`.execute(store.db)).rejects.toMatchObject({
      code: '23505',
    });
    const { rows } = await sql<{ n: string }>`select count(*) as n from prepared_rows where k like ${'row-%'}`.execute(
      store.db,
    );
    expect(Number(rows[0]?.n)).toBe(5);
  });

  /** A store of one connection, so that every statement below meets the same prepared statements. */
  async function oneConnection() {
    return PostgresStore.connect<unknown>(
      { connectionString: BASE, options: `-c search_path=${backend.target}`, max: 1 },
      { preparedStatements: true },
    );
  }

  it('a table changed under a prepared statement fails it at most once; then it runs unprepared', async () => {
    const one = await oneConnection();
    try {
      await sql`create table prepared_changed (k text primary key, v text)`.execute(one.db);
      await sql`insert into prepared_changed (k, v) values ('a', 'one')`.execute(one.db);
      const read = () =>
        one.db
          .transaction()
          .execute((tx) => sql<{ v: string }>`select * from prepared_changed where k = ${'a'}`.execute(tx));
      expect((await read()).rows[0]?.v).toBe('one');
      await sql`alter table prepared_changed add column extra text`.execute(store.db);
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) {
        outcomes.push(
          await read().then(
            (r) => `ok:${r.rows[0]?.v}`,
            (e: { code?: string }) => `error:${e.code}`,
          ),
        );
      }
      // PostgreSQL refuses the statement prepared before the change on every run; the store stops using it.
      expect(outcomes.filter((o) => o.startsWith('error'))).toEqual(['error:0A000']);
      expect(outcomes.slice(1)).toEqual(['ok:one', 'ok:one', 'ok:one']);
    } finally {
      await one.close();
    }
  });

  it('a parameter the driver cannot send fails its own call only; the same statement works afterwards', async () => {
    const one = await oneConnection();
    try {
      const json = (value: unknown) => sql<{ j: unknown }>`select ${value}::jsonb as j`.execute(one.db);
      expect((await json(JSON.stringify({ a: 1 }))).rows[0]?.j).toEqual({ a: 1 });
      await expect(json({ a: 1n })).rejects.toThrow();
      const after: string[] = [];
      for (let i = 0; i < 3; i++) {
        after.push(
          await json(JSON.stringify({ a: 2 })).then(
            () => 'ok',
            (e: { code?: string }) => `error:${e.code}`,
          ),
        );
      }
      expect(after.slice(1)).toEqual(['ok', 'ok']); // at most the first one after it fails
    } finally {
      await one.close();
    }
  });

  it('refuses a preparedStatements that is not a boolean', async () => {
    await expect(PostgresStore.connect(BASE, { preparedStatements: 'yes' as never })).rejects.toBeInstanceOf(
      InvalidOption,
    );
  });
});
