import { describe, expect, it } from 'vitest';
import { TransactionEnded } from '../../../packages/payonce/src/core/errors.js';
import { TransactionFence } from '../../../packages/payonce/src/core/transaction-fence.js';

/** A stand-in for a driver's connection: a class with a private field, as Kysely's `Transaction` has. */
class Connection {
  readonly sent: string[] = [];
  #open = true;
  query(text: string): string {
    if (!this.#open) throw new Error('closed');
    this.sent.push(text);
    return `ok: ${text}`;
  }
  get isOpen(): boolean {
    return this.#open;
  }
}

describe('TransactionFence', () => {
  it('lends an object that behaves as itself while open (methods run on the object: private fields work)', () => {
    const fence = new TransactionFence();
    const connection = new Connection();
    const lent = fence.lend(connection);
    expect(lent.query('select 1')).toBe('ok: select 1');
    expect(lent.isOpen).toBe(true);
    expect(lent).toBeInstanceOf(Connection);
    expect(lent.query).toBe(lent.query);
    expect(connection.sent).toEqual(['select 1']);
  });

  it('refuses every read and call once closed, before anything reaches the object (TransactionEnded)', () => {
    const fence = new TransactionFence();
    const connection = new Connection();
    const lent = fence.lend(connection);
    const query = lent.query; // read while open, called after the close
    fence.close();
    expect(() => lent.query('insert')).toThrow(TransactionEnded);
    expect(() => query('insert')).toThrow(TransactionEnded);
    expect(() => lent.isOpen).toThrow(TransactionEnded);
    expect(connection.sent).toEqual([]);
  });

  it('fences a callable transaction (a Knex `trx`) and passes anything that is not an object through', () => {
    const fence = new TransactionFence();
    const calls: string[] = [];
    const trx = fence.lend(Object.assign((table: string) => calls.push(table), { commit: () => 'done' }));
    trx('orders');
    expect(fence.lend(undefined)).toBeUndefined();
    expect(fence.lend(7)).toBe(7);
    fence.close();
    expect(() => trx('orders')).toThrow(TransactionEnded);
    expect(() => trx.commit()).toThrow(TransactionEnded);
    expect(calls).toEqual(['orders']);
  });

  it('still answers `then` when closed, so a closed view can be the value of a promise', async () => {
    const fence = new TransactionFence();
    const lent = fence.lend(new Connection());
    fence.close();
    await expect(Promise.resolve(lent)).resolves.toBe(lent);
  });
});
