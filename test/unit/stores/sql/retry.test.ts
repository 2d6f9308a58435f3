import { describe, expect, it } from 'vitest';
import { withRetry } from '../../../../packages/payonce/src/stores/sql/retry.js';

class Busy extends Error {}
const isBusy = (error: unknown) => error instanceof Busy;

/** A statement that fails with `errors` in turn, then returns 'ok'; counts its calls. */
function flaky(errors: Error[]) {
  let calls = 0;
  return {
    run: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return 'ok';
    },
    get calls() {
      return calls;
    },
  };
}

describe('withRetry', () => {
  it('retries transient errors until the statement succeeds', async () => {
    const statement = flaky([new Busy(), new Busy(), new Busy()]);
    await expect(withRetry(statement.run, isBusy, true)).resolves.toBe('ok');
    expect(statement.calls).toBe(4);
  });

  it('gives up after 6 tries and rethrows the last transient error', async () => {
    const errors = Array.from({ length: 10 }, () => new Busy());
    const statement = flaky(errors);
    await expect(withRetry(statement.run, isBusy, true)).rejects.toBe(errors[5]);
    expect(statement.calls).toBe(6);
  });

  it('rethrows a non-transient error at once', async () => {
    const fatal = new Error('syntax');
    const statement = flaky([fatal]);
    await expect(withRetry(statement.run, isBusy, true)).rejects.toBe(fatal);
    expect(statement.calls).toBe(1);
  });

  it('never retries inside a caller’s transaction', async () => {
    const busy = new Busy();
    const statement = flaky([busy]);
    await expect(withRetry(statement.run, isBusy, false)).rejects.toBe(busy);
    expect(statement.calls).toBe(1);
  });
});
