import { CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HeldWrites, heldWritesOf, holdingWrites } from '../../../../packages/payonce/src/stores/sql/held-writes.js';

/**
 * Issue #40: the closing writes of a group-commit transaction are held until the next statement on its connection,
 * whoever sends it, or its end — and reach the connection in the order they were issued.
 */

/** A connection that records what it is sent, in order, and answers each write with one row touched. */
function recordingConnection(fail: (sql: string) => boolean = () => false) {
  const sent: string[] = [];
  const answer = async (query: CompiledQuery): Promise<QueryResult<unknown>> => {
    sent.push(query.sql);
    if (fail(query.sql)) throw new Error(`refused: ${query.sql}`);
    const parts = query.sql.startsWith('with ') ? query.sql.split(' as (').length - 1 : 0;
    if (parts > 0) return { rows: [Object.fromEntries(Array.from({ length: parts }, (_, i) => [`n${i}`, 1]))] };
    return { rows: [], numAffectedRows: 1n };
  };
  const connection: DatabaseConnection = {
    executeQuery: answer as DatabaseConnection['executeQuery'],
    async *streamQuery(query: CompiledQuery) {
      await answer(query);
      yield { rows: [] };
    },
  };
  return { connection, sent };
}

/** A write as `together` gathers it: its query, and the promise its caller awaits. */
function gathered(sql: string) {
  let settle!: { resolve: (r: QueryResult<never>) => void; reject: (e: unknown) => void };
  const answered = new Promise<QueryResult<never>>((resolve, reject) => (settle = { resolve, reject }));
  return { write: { query: CompiledQuery.raw(sql), ...settle }, answered };
}

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('held writes of a group transaction', () => {
  it('sends nothing until the next statement on the connection, then the held writes first, as one statement', async () => {
    const { connection, sent } = recordingConnection();
    const held = new HeldWrites();
    const a = gathered('update a set x = $1');
    const b = gathered('insert into b values ($1)');
    held.hold(connection, [a.write, b.write]);
    await settled();
    expect(sent).toEqual([]);
    expect(held.holding).toBe(true);
    await connection.executeQuery(CompiledQuery.raw('select 1'));
    expect(sent).toEqual([
      'with w0 as (update a set x = $1 returning 1), w1 as (insert into b values ($1) returning 1) select (select count(*) from w0)::int as n0, (select count(*) from w1)::int as n1',
      'select 1',
    ]);
    expect((await a.answered).numAffectedRows).toBe(1n);
    expect((await b.answered).numAffectedRows).toBe(1n);
    held.end();
  });

  it('sends the held writes before a streamed statement too', async () => {
    const { connection, sent } = recordingConnection();
    const held = new HeldWrites();
    held.hold(connection, [gathered('delete from c where id = $1').write]);
    for await (const _ of connection.streamQuery(CompiledQuery.raw('select * from c'))) break;
    expect(sent).toEqual(['delete from c where id = $1', 'select * from c']);
    held.end();
  });

  it('settle sends what is held, waits for what was started and what it issues after, and throws the first failure', async () => {
    const { connection, sent } = recordingConnection((sql) => sql.includes('refused'));
    const held = new HeldWrites();
    const first = gathered('update ok set x = 1');
    const then = gathered('update refused set x = 2');
    // A started write that, once answered, holds another (as a caller's later statements may): settled too.
    held.track(first.answered.then(() => held.hold(connection, [then.write])).then(() => then.answered));
    held.hold(connection, [first.write]);
    await expect(held.settle()).rejects.toThrow('refused: update refused set x = 2');
    expect(held.failed).toBe(true);
    expect(sent).toEqual(['update ok set x = 1', 'update refused set x = 2']);
    held.end();
  });

  it('ends by giving the connection its own methods back and failing what was never sent', async () => {
    const { connection, sent } = recordingConnection();
    const own = connection.executeQuery;
    const unsent = gathered('update d set x = 1');
    const executor = {} as never;
    await holdingWrites(executor, async (held) => {
      expect(heldWritesOf(executor)).toBe(held);
      held.hold(connection, [unsent.write]);
      expect(connection.executeQuery).not.toBe(own);
    });
    expect(heldWritesOf(executor)).toBeUndefined();
    expect(connection.executeQuery).toBe(own);
    await expect(unsent.answered).rejects.toThrow('the transaction ended before its held writes were sent');
    await connection.executeQuery(CompiledQuery.raw('select 2'));
    expect(sent).toEqual(['select 2']);
  });
});
