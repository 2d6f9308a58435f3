/**
 * A relay process of the relay storm: `node relay-child.js <json>` with `{ databaseUrl, publish, topic, relayId,
 * leaseMs, batchSize, killAfterRound }`. Runs `OutboxRelay` rounds on `topic` and prints one JSON line per
 * acknowledged batch (`{"event":"acked","count":n,"duplicates":d}`, before the jobs are marked) and per round.
 * With `killAfterRound` = k it SIGKILLs itself right after the broker acknowledged round k — after the ack,
 * BEFORE the jobs are marked sent. SIGTERM stops it after the current round (prints `{"event":"stopped",…}`).
 */
import { publisherForUrl } from 'payonce/internal/relay/broker-url.js';
import { OutboxRelay } from 'payonce/internal/relay/outbox-relay.js';
import { parseDatabaseUrl } from 'payonce/internal/stores/database-url.js';
import { openSqlStore } from 'payonce/internal/stores/open-sql-store.js';
import type { RelayChildConfig } from './storm-config.js';

const config = JSON.parse(process.argv[2] ?? '{}') as RelayChildConfig;
// Orphaned (the storm driver died): leave instead of relaying or consuming forever.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) process.exit(3);
}, 1_000).unref();
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const store = await openSqlStore(parseDatabaseUrl(config.databaseUrl));
const publisher = publisherForUrl(config.publish);
let rounds = 0;
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});
const relay = new OutboxRelay(store, publisher, {
  topics: [config.topic],
  relayId: config.relayId,
  leaseMs: config.leaseMs,
  batchSize: config.batchSize,
  pollIntervalMs: 50,
  backoffBaseMs: 100,
  backoffMaxMs: 1_000,
  maxAttempts: 1_000,
  onAcknowledged: (acked) => {
    rounds++;
    print({ event: 'acked', count: acked.length, duplicates: acked.filter((a) => a.duplicate).length, round: rounds });
    if (config.killAfterRound !== null && rounds >= config.killAfterRound) process.kill(process.pid, 'SIGKILL');
  },
});
await relay.prepare();
print({ event: 'ready', pid: process.pid });
while (!stopping) {
  const round = await relay.runOnce().catch((error: unknown) => {
    print({ event: 'error', message: error instanceof Error ? error.message : String(error) });
    return null;
  });
  if (round && (round.claimed > 0 || round.published > 0)) print({ event: 'round', ...round });
  if (!round || round.claimed === 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
await relay.flush();
print({ event: 'stopped', ...relay.counters });
await publisher.close();
await store.close();
