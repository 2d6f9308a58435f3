import { afterAll, beforeAll, describe, it } from 'vitest';
import { runRelayStorm } from '../../packages/cli/src/relay-storm/run-relay-storm.js';
import { createSqliteNamespace, type SqliteNamespace } from '../contract/backends/sqlite.js';
import { expectStormPassed, TEST_STORM } from './storm-expectations.js';

describe('relay storm on SQLite', () => {
  let ns: SqliteNamespace;
  beforeAll(async () => {
    ns = await createSqliteNamespace();
  });
  afterAll(async () => {
    await ns.drop();
  });

  // One broker per database, crossed with the other file (PostgreSQL × NATS): each database and each broker is
  // stormed once (claims, leases and kills are the database's part; the dedupe window and redelivery the broker's),
  // and the npm test budget has no room for all four pairs. The whole matrix is `payonce relay storm` with any --database-url and --broker-url.
  it.each([['RabbitMQ', 'amqp://guest:guest@127.0.0.1:5672']])(
    '%s: scenarios (a)–(e) apply every message exactly once, in aggregate order',
    async (_name, brokerUrl) => {
      expectStormPassed(await runRelayStorm({ databaseUrl: ns.path, brokerUrl, ...TEST_STORM }));
    },
    180_000,
  );
});
