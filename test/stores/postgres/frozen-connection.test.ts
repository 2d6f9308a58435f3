import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { discardWhenTimedOut } from '../../../packages/payonce/src/stores/postgres/discard-timed-out.js';
import { PostgresStore } from '../../../packages/payonce/src/stores/postgres/postgres-store.js';
import { sqlDialectsFromEnv } from '../../outbox/sql-backends.js';
import { silentDatabase } from '../../service/silent-database.js';

// A database host that freezes mid-statement and comes back (issue 34 H1, 17): `pg`'s `query_timeout` fails the
// statement but leaves it active on its connection. The store's own Kysely must not lend that connection again,
// or every later statement of a caller using it fails although the database answers.

const BASE = process.env.PAYONCE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe.skipIf(!sqlDialectsFromEnv().includes('postgres'))('postgres: a connection frozen mid-statement', () => {
  it("is destroyed, not lent again: once the database answers, the store's Kysely statements succeed", async () => {
    const database = await silentDatabase(new URL(BASE));
    database.answer();
    const store = await PostgresStore.connect<unknown>({
      connectionString: database.url(BASE),
      max: 3,
      // Generous: only the frozen statement must outlive it, whatever the load of the host.
      query_timeout: 3_000,
      connectionTimeoutMillis: 5_000,
    });
    try {
      const one = () => sql<{ x: number }>`select 1 as x`.execute(store.db);
      expect((await one()).rows).toEqual([{ x: 1 }]);
      database.freeze();
      await expect(one()).rejects.toThrow('Query read timeout');
      database.answer();
      // One statement at a time: pg-pool lends the most recently released client first, so a frozen client kept
      // in the pool would be the one every statement gets. A loaded host may time out a fresh statement too; each
      // such client is destroyed as well, so a few tries must reach a healthy connection.
      const results: string[] = [];
      for (let i = 0; i < 5 && results.at(-1) !== 'ok'; i += 1) {
        results.push(
          await one().then(
            () => 'ok',
            (error: Error) => error.message,
          ),
        );
      }
      expect(results.at(-1), results.join(', ')).toBe('ok');
    } finally {
      await store.close();
      await database.close();
    }
  }, 60_000);

  it('a lent client is released for destruction only after a read timeout; other errors leave the choice to the caller', async () => {
    const released: (boolean | Error | undefined)[] = [];
    const failing = (message: string) => ({
      query: () => Promise.reject(new Error(message)),
      release: (discard?: boolean | Error) => void released.push(discard),
    });
    const syntax = discardWhenTimedOut(failing('syntax error at or near "selec"'));
    await expect(syntax.query()).rejects.toThrow('syntax error');
    syntax.release();
    const frozen = discardWhenTimedOut(failing('Query read timeout'));
    await expect(frozen.query()).rejects.toThrow('Query read timeout');
    frozen.release(false);
    expect(released).toEqual([undefined, true]);
  });
});
