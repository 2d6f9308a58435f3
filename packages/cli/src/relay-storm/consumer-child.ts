/**
 * A consumer process of the relay storm: `node consumer-child.js <json>` with `{ databaseUrl, consumer,
 * killAfterCommits }`. Runs the idempotent consumer of `consumer` with the storm's effect and prints
 * `{"event":"delivery","outcome":…}` per delivery after its inbox commit. With `killAfterCommits` = k it
 * SIGKILLs itself after the k-th applied commit — after the commit, BEFORE the broker ack. SIGTERM stops it.
 */
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { openSqlStore } from 'payonce/internal/stores/open-sql-store.js';
import { startStormConsumer } from './storm-broker.js';
import type { ConsumerChildConfig } from './storm-config.js';
import { applyStormEffect } from './storm-effects.js';

const config = JSON.parse(process.argv[2] ?? '{}') as ConsumerChildConfig;
// Orphaned (the storm driver died): leave instead of relaying or consuming forever.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) process.exit(3);
}, 1_000).unref();
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const store = await openSqlStore(parseDatabaseUrl(config.databaseUrl));
let applied = 0;
const consumer = await startStormConsumer(config.consumer, store, applyStormEffect, {
  onCommitted: (_message, outcome) => {
    print({ event: 'delivery', outcome });
    if (outcome === 'applied') applied++;
    if (config.killAfterCommits !== null && applied >= config.killAfterCommits) process.kill(process.pid, 'SIGKILL');
  },
});
print({ event: 'ready', pid: process.pid });
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
await consumer.stop();
print({ event: 'stopped', ...consumer.counters });
await store.close();
