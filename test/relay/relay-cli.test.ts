import { spawn } from 'node:child_process';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payonceBin } from '../../packages/cli/src/demo/service-launch.js';
import { SqliteStore } from '../../packages/payonce/src/stores/sqlite/sqlite-store.js';
import { runPayonce } from '../cli/support/run-payonce.js';
import { createSqliteNamespace, type SqliteNamespace } from '../contract/backends/sqlite.js';
import { enqueueMany, uniqueName } from './relay-fixtures.js';

const NATS = 'nats://127.0.0.1:4222';

describe('payonce relay and payonce relay-storm (the built CLI)', () => {
  let ns: SqliteNamespace;
  beforeAll(async () => {
    ns = await createSqliteNamespace();
  });
  afterAll(async () => {
    await ns.drop();
  });

  it('relay-storm exits 0 and prints the per-scenario table when every scenario passes', async () => {
    const run = await runPayonce(
      [
        'relay-storm',
        '--database-url',
        ns.path,
        '--broker',
        NATS,
        '--messages',
        '40',
        '--kills',
        '1',
        '--aggregates',
        '4',
        '--only',
        'a,b',
      ],
      {},
      120_000,
    );
    const context = `${run.stdout}\n${run.stderr}`;
    expect(run.code, context).toBe(0);
    expect(run.stdout).toMatch(/^scenario +messages +applied once +lost +doubled +out of order/m);
    expect(run.stdout).toMatch(/^ +\(a\) +40 +40 +0 +0 +0 +1 .* pass$/m);
    expect(run.stdout).toMatch(/^ +\(b\) +40 +40 +0 +0 +0 +0 .* pass$/m);
    expect(run.stdout).toContain('PASS: 2/2 scenarios on sqlite + nats');
  }, 150_000);

  it('relay-storm refuses a broker that is not nats:// or amqp:// with exit 2', async () => {
    const run = await runPayonce(['relay-storm', '--database-url', ns.path, '--broker', 'redis://127.0.0.1:6379']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a nats:// or amqp:// URL');
  });

  it('relay publishes the outbox jobs of its topics, prints its metrics and stops on SIGTERM', async () => {
    const prefix = uniqueName('cli');
    const topic = uniqueName('topic');
    const store = await SqliteStore.open<unknown>(ns.path);
    await store.migrate();
    await enqueueMany(store, topic, 3, 4);
    await store.close();
    const child = spawn(
      process.execPath,
      [
        payonceBin(),
        'relay',
        '--database-url',
        ns.path,
        '--broker',
        NATS,
        '--subject-prefix',
        prefix,
        '--topics',
        topic,
        '--stats-every-ms',
        '100',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const nc = await connect({ servers: NATS });
    const jsm = await jetstreamManager(nc);
    try {
      const deadline = Date.now() + 20_000;
      while (!/"published":12,.*"lagMs":0/.test(stdout) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(stdout).toContain(`payonce relay running: sqlite ${ns.path} → ${NATS}`);
      expect(stdout).toMatch(/"published":12,"duplicates":0,"unroutable":0/);
      expect((await jsm.streams.info(prefix.toUpperCase())).state.messages).toBe(12);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout).toContain('payonce relay: SIGTERM, stopping');
    } finally {
      child.kill('SIGKILL');
      await jsm.streams.delete(prefix.toUpperCase()).catch(() => false);
      await nc.close();
    }
  });
});
