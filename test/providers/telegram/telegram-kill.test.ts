import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../../outbox/sql-backends.js';
import { FakeBotApi, messageUpdates } from './fake-bot-api.js';
import { createEffectsTable, effectsOf, testPoller, until } from './telegram-support.js';

const child = fileURLToPath(new URL('./telegram-kill-child.ts', import.meta.url));

/** Runs the child poller until it has printed `writes` more `writing` lines, then SIGKILLs it. */
async function pollAndKill(backend: SqlBackend, api: FakeBotApi, writes: number): Promise<void> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', child, backend.dialect, backend.target, api.url, api.token],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (chunk: Buffer) => {
      seen += (chunk.toString().match(/writing \d+/g) ?? []).length;
      if (seen >= writes) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`child exited with ${code} after ${seen} writes`)));
  });
  proc.kill('SIGKILL');
  await once(proc, 'exit');
  expect(proc.signalCode).toBe('SIGKILL');
}

// One dialect, one kill: a child process costs seconds and `npm test` is at its budget. The in-process tests of
// telegram-poller.test.ts cover the same steps on SQLite and PostgreSQL.
for (const dialect of sqlDialectsFromEnv().slice(0, 1)) {
  describe(`${dialect}: TelegramPoller killed with SIGKILL mid-batch`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let api: FakeBotApi;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await createEffectsTable(store);
      api = await FakeBotApi.start();
    }, 60_000);
    afterAll(async () => {
      await api?.close();
      await backend?.drop();
    });

    it('killed mid-batch: the next runner waits out its lease, skips nothing and applies nothing twice', async () => {
      const batch = messageUpdates(20);
      api.push(...batch);
      await pollAndKill(backend, api, 9); // mid-batch: some committed, one perhaps written but not committed
      const poller = testPoller(store, api, 'survivor', { leaseMs: 500 });
      poller.start();
      try {
        const ids = batch.map((u) => u.update_id);
        await until(async () => {
          const effects = await effectsOf(store);
          return ids.every((id) => effects.has(id));
        }, 'every update applied');
        await until(() => api.pending().length === 0, 'the offset past the batch');
      } finally {
        await poller.stop();
      }
      const effects = await effectsOf(store);
      const counts = batch.map((u) => effects.get(u.update_id));
      expect(counts).toEqual(batch.map(() => 1));
    }, 60_000);
  });
}
