import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreSchemaMissing } from '../../packages/payonce/src/core/errors.js';
import type { GuardEvents } from '../../packages/payonce/src/core/guard-events.js';
import { IdempotencyGuard } from '../../packages/payonce/src/core/idempotency-guard.js';
import { RequestKey } from '../../packages/payonce/src/core/request-key.js';
import {
  createIdempotencyCore,
  type IdempotencyCoreOptions,
} from '../../packages/payonce/src/http/idempotency-core.js';
import { logGuard } from '../../packages/payonce/src/observe/log-events.js';
import { createLogger } from '../../packages/payonce/src/observe/logger.js';
import { MysqlStore } from '../../packages/payonce/src/stores/mysql/mysql-store.js';
import { PostgresStore } from '../../packages/payonce/src/stores/postgres/postgres-store.js';
import type { SqlStore } from '../../packages/payonce/src/stores/sql/sql-store.js';
import type { StackTransactions } from '../../packages/payonce/src/stores/sql/stack-transactions.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { pgTransactions } from '../../packages/payonce/src/tx/pg.js';
import { createMysqlNamespace } from '../contract/backends/mysql.js';
import { createPostgresNamespace, POSTGRES_TEST_URL } from '../contract/backends/postgres.js';
import { FRAMEWORKS, postPayment, startRouteApp } from './support/route-apps.js';

// A store whose tables are not where it looks (never migrated, or a `schema` option naming another schema) is a
// configuration failure, told apart from an outage: `StoreSchemaMissing`, answered 503 STORE_SCHEMA_MISSING with
// Retry-After, reported once per guard (`store:schema-missing`, else one stderr line), found at start by checkSchema().

/** A schema name no test ever creates. */
const nowhere = () => `nowhere_${randomBytes(4).toString('hex')}`;

interface Target {
  readonly name: string;
  /** The store's `schema` option, or `null`. */
  readonly schema: string | null;
  open(): Promise<SqlStore<unknown>>;
}

describe('a store whose tables are missing', () => {
  const drops: (() => Promise<void>)[] = [];
  const targets: Target[] = [];
  beforeAll(async () => {
    const postgres = await createPostgresNamespace();
    const mysql = await createMysqlNamespace();
    drops.push(postgres.drop, mysql.drop);
    const pgSchema = nowhere();
    targets.push(
      { name: 'sqlite, never migrated', schema: null, open: () => SqliteStore.open(':memory:') },
      { name: 'postgres, never migrated', schema: null, open: () => PostgresStore.connect(postgres.config) },
      {
        name: 'postgres, schema option naming another schema',
        schema: pgSchema,
        open: () => PostgresStore.connect(POSTGRES_TEST_URL, { schema: pgSchema }),
      },
      { name: 'mysql, never migrated', schema: null, open: () => MysqlStore.connect(mysql.url) },
    );
  }, 60_000);
  afterAll(async () => {
    for (const drop of drops) await drop();
    const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await client.connect();
    for (const { schema } of targets)
      if (schema !== null) await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it('is StoreSchemaMissing from the guard and from checkSchema(), with the fix; checkSchema() passes once migrated', async () => {
    for (const target of targets) {
      const store = await target.open();
      try {
        const guard = new IdempotencyGuard(store);
        guard.on('store:schema-missing', () => {}); // heard: nothing on stderr
        const run = guard.run(new RequestKey('stripe', 'evt_1'), () => ({ status: 200, body: 'ok' }));
        const error = await run.then(
          () => null,
          (failure: unknown) => failure,
        );
        expect(error, target.name).toBeInstanceOf(StoreSchemaMissing);
        const missing = error as StoreSchemaMissing;
        expect([missing.code, missing.schema, missing.retryAfterMs], target.name).toEqual([
          'STORE_SCHEMA_MISSING',
          target.schema,
          1_000,
        ]);
        expect(missing.missing, target.name).toMatch(/payonce_receipts/);
        const fix = target.schema === null ? '`payonce migrate`' : `\`payonce migrate --schema ${target.schema}\``;
        expect(missing.message, target.name).toContain(fix);
        await expect(store.checkSchema(), target.name).rejects.toThrow(StoreSchemaMissing);
        await store.migrate();
        await expect(store.checkSchema(), target.name).resolves.toBeUndefined();
      } finally {
        await store.close();
      }
    }
  }, 60_000);

  describe('behind an Idempotency-Key route', () => {
    let store: SqlStore<unknown>;
    let schema: string;
    let pool: pg.Pool;
    beforeAll(async () => {
      schema = nowhere();
      store = await PostgresStore.connect(POSTGRES_TEST_URL, { schema });
      pool = new pg.Pool({ connectionString: POSTGRES_TEST_URL });
    });
    afterAll(async () => {
      await pool?.end();
      await store?.close();
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    const modes: [string, () => IdempotencyCoreOptions['transaction']][] = [
      ['default mode', () => false],
      ['transaction: true', () => true],
      ['transaction: pgTransactions(pool)', () => pgTransactions(pool) as StackTransactions<unknown>],
    ];

    it.each(FRAMEWORKS)(
      '%s: every request is 503 STORE_SCHEMA_MISSING with Retry-After, reported once per guard',
      async (framework) => {
        for (const [mode, transaction] of modes) {
          const guard = new IdempotencyGuard(store);
          const reports: GuardEvents['store:schema-missing'][] = [];
          guard.on('store:schema-missing', (event) => reports.push(event));
          const core = createIdempotencyCore({ guard, transaction: transaction() });
          const app = await startRouteApp(framework, core, async (ctx) => ctx.answer(201, '{}'));
          try {
            for (const key of ['key-1', 'key-2', 'key-1']) {
              const reply = await postPayment(app, key, { amount: 100 });
              expect([reply.status, reply.headers.get('retry-after')], mode).toEqual([503, '1']);
              expect(reply.headers.get('content-type'), mode).toBe('application/problem+json');
              const problem = JSON.parse(reply.text) as { code: string; detail: string };
              expect(problem.code, mode).toBe('STORE_SCHEMA_MISSING');
              expect(problem.detail, mode).toMatch(/not migrated/);
            }
            expect(reports, mode).toEqual([
              { missing: `${schema}.payonce_receipts`, schema, message: expect.stringContaining('payonce migrate') },
            ]);
          } finally {
            await app.close();
          }
        }
      },
      60_000,
    );

    it('logGuard logs it once, at error, with what is missing and the migrate command to run', async () => {
      const lines: Record<string, unknown>[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
          done();
        },
      });
      const guard = new IdempotencyGuard(store);
      logGuard(guard, createLogger({ destination: destination as never }));
      const app = await startRouteApp('hono', createIdempotencyCore({ guard }), async (ctx) => ctx.answer(201, '{}'));
      try {
        for (const key of ['key-x', 'key-y']) expect((await postPayment(app, key, { amount: 1 })).status).toBe(503);
      } finally {
        await app.close();
      }
      expect(lines).toEqual([
        expect.objectContaining({
          level: 50,
          code: 'STORE_SCHEMA_MISSING',
          missing: `${schema}.payonce_receipts`,
          schema,
          msg: expect.stringContaining(`payonce migrate --schema ${schema}`),
        }),
      ]);
    });

    it('nothing listening: the guard writes one line to stderr, not one per request', async () => {
      const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
      const core = createIdempotencyCore({ guard: new IdempotencyGuard(store) });
      const app = await startRouteApp('express', core, async (ctx) => ctx.answer(201, '{}'));
      try {
        for (const key of ['key-a', 'key-b', 'key-c']) {
          expect((await postPayment(app, key, { amount: 1 })).status).toBe(503);
        }
      } finally {
        await app.close();
      }
      expect(stderr).toHaveBeenCalledTimes(1);
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(
        new RegExp(`^payonce: STORE_SCHEMA_MISSING: .*payonce migrate --schema ${schema}`),
      );
    });
  });
});
