import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { tsChildArgs } from '../../support/ts-child.js';
import { AMOUNT, newPaymeId, PAYME_TIME } from './payme-fixtures.js';
import { paymeBench } from './payme-harness.js';
import { PAYME_BACKENDS, paymeNamespace } from './payme-stores.js';

const child = fileURLToPath(new URL('./payme-kill-child.ts', import.meta.url));
/** The child's clock: a moment after the test's own clock starts, so its perform_time is told apart. */
const CHILD_NOW = PAYME_TIME + 60_000;

/** Runs the child's PerformTransaction until it prints `marker`, then kills it with SIGKILL. */
async function performAndKill(backend: string, target: string, paymeId: string, when: string, marker: string) {
  const proc = spawn(process.execPath, tsChildArgs(child, [backend, target, paymeId, String(CHILD_NOW), when]), {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(marker)) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`child exited with ${code} before "${marker}"`)));
  });
  proc.kill('SIGKILL');
  await once(proc, 'exit');
  expect(proc.signalCode).toBe('SIGKILL');
}

for (const backend of PAYME_BACKENDS) {
  describe(`${backend}: PerformTransaction killed with SIGKILL, then Payme's repeat`, () => {
    let namespace: Awaited<ReturnType<typeof paymeNamespace>>;
    let store: SqlStore<unknown>;
    beforeAll(async () => {
      namespace = await paymeNamespace(backend);
      store = await namespace.open();
    });
    afterAll(async () => namespace?.drop());

    async function createdTransaction() {
      const bench = paymeBench(store);
      const order = bench.addOrder();
      const id = newPaymeId();
      const create = await bench.call('CreateTransaction', {
        id,
        time: PAYME_TIME,
        amount: AMOUNT,
        account: order.account,
      });
      expect(create.result?.state).toBe(1);
      return { bench, id };
    }

    it('killed after the commit, before the answer: the repeat gets the stored perform_time; one fulfilment', async () => {
      const { bench, id } = await createdTransaction();
      await performAndKill(backend, namespace.target, id, 'after-commit', 'committed');
      bench.clock.set(CHILD_NOW + 30_000);
      const repeat = await bench.call('PerformTransaction', { id });
      expect(repeat.result).toMatchObject({ state: 2, perform_time: CHILD_NOW });
      expect((await bench.call('CheckTransaction', { id })).result).toMatchObject({
        state: 2,
        perform_time: CHILD_NOW,
      });
      expect(await bench.fulfilments(id)).toBe(1);
    });

    it('killed inside the fulfilment, before the commit: nothing was kept; the repeat performs once', async () => {
      const { bench, id } = await createdTransaction();
      await performAndKill(backend, namespace.target, id, 'before-commit', 'in-fulfilment');
      bench.clock.set(CHILD_NOW + 30_000);
      const repeat = await bench.call('PerformTransaction', { id });
      expect(repeat.result).toMatchObject({ state: 2, perform_time: CHILD_NOW + 30_000 });
      bench.clock.advance(1_000);
      expect((await bench.call('PerformTransaction', { id })).result).toEqual(repeat.result);
      expect(await bench.fulfilments(id)).toBe(1);
    });
  });
}
