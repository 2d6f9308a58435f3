import type { Command } from 'commander';
import { InvalidOption } from 'payonce/internal/core/errors.js';
import type { SqlTarget } from 'payonce/internal/outbox/sql-transaction.js';
import { publisherForUrl } from 'payonce/internal/relay/broker-url.js';
import { OutboxRelay } from 'payonce/internal/relay/outbox-relay.js';
import { describeTarget, parseDatabaseUrl, redact } from 'payonce/internal/stores/database-url.js';
import { openSqlStore } from 'payonce/internal/stores/open-sql-store.js';
import type { CliIo } from '../cli-io.js';
import { CliUsageError } from '../cli-usage-error.js';
import { millis, untilSignal } from './serve.js';

/** Options of `payonce relay` as commander parses them. */
export interface RelayCommandOptions {
  databaseUrl: string;
  broker: string;
  subjectPrefix: string;
  topics: string;
  stream?: string;
  exchange?: string;
  leaseMs: number;
  batchSize: number;
  pollMs: number;
  statsEveryMs: number;
}

function topicsOf(value: string): string[] {
  const topics = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  if (topics.length === 0) throw new CliUsageError(`--topics needs at least one outbox topic, got "${value}"`);
  return topics;
}

/**
 * `payonce relay`: runs an `OutboxRelay` on `--database-url` (migrated on start) publishing the outbox jobs of
 * `--topics` to `--broker` (`nats://…` JetStream stream `--stream`, or `amqp://…` exchange `--exchange`) under
 * `<subject-prefix>.<topic>`. Prints `payonce relay running …`, then every `--stats-every-ms` one line of
 * metrics (published, duplicates acknowledged by the broker, unroutable, failed, dead letters, lag = age of the
 * oldest unsent job in ms), until SIGTERM or SIGINT; then it stops after the current round.
 * @throws {CliUsageError} bad flags or URLs (exit 2); the driver's or broker's error when they cannot be reached (exit 1).
 */
export async function runRelayCommand(options: RelayCommandOptions, io: CliIo): Promise<void> {
  const database = parseDatabaseUrl(options.databaseUrl);
  const topics = topicsOf(options.topics);
  let relay: OutboxRelay<unknown>;
  const signal = untilSignal();
  const store = await openSqlStore(database);
  try {
    await store.migrate();
    const publisher = (() => {
      try {
        return publisherForUrl({
          url: options.broker,
          subjectPrefix: options.subjectPrefix,
          stream: options.stream,
          exchange: options.exchange,
        });
      } catch (error) {
        if (error instanceof InvalidOption) throw new CliUsageError(`--broker: ${error.message}`);
        throw error;
      }
    })();
    relay = new OutboxRelay(store as unknown as SqlTarget<unknown>, publisher, {
      topics,
      leaseMs: options.leaseMs,
      batchSize: options.batchSize,
      pollIntervalMs: options.pollMs,
      onError: (error) => io.err(`payonce relay: ${error instanceof Error ? error.message : String(error)}`),
    });
    await relay.prepare();
    relay.start();
    io.out(
      `payonce relay running: ${describeTarget(database)} → ${redact(options.broker)} (topics ${topics.join(', ')}, subjects ${options.subjectPrefix}.<topic>)`,
    );
    const stats = setInterval(() => {
      void relay.lagMs().then(
        (lag) => io.out(`payonce relay: ${JSON.stringify({ ...relay.counters, lagMs: lag })}`),
        () => {},
      );
    }, options.statsEveryMs);
    const received = await signal;
    clearInterval(stats);
    io.out(`payonce relay: ${received}, stopping`);
    await relay.stop();
    io.out(`payonce relay: ${JSON.stringify(relay.counters)}`);
    await publisher.close();
  } finally {
    await store.close();
  }
}

/** Registers `relay` on the `payonce` program. */
export function registerRelay(program: Command, io: CliIo): void {
  program
    .command('relay')
    .description('publish outbox jobs to NATS JetStream or RabbitMQ, marking each sent only after the broker ack')
    .requiredOption(
      '--database-url <url>',
      'SQLite file, postgres://… or mysql://… holding the outbox (migrated on start)',
    )
    .requiredOption('--broker <url>', 'nats://host:4222 (JetStream) or amqp://user:pass@host:5672')
    .option('--subject-prefix <prefix>', 'subjects / routing keys are <prefix>.<topic>', 'payonce')
    .option('--topics <list>', 'outbox topics to relay, comma-separated', 'order.paid,order.fulfilled')
    .option(
      '--stream <name>',
      'JetStream stream (created with subjects <prefix>.> if missing; default: the prefix upper-cased)',
    )
    .option('--exchange <name>', 'RabbitMQ topic exchange (default: the prefix)')
    .option(
      '--lease-ms <ms>',
      'lease of claimed jobs (JetStream duplicate_window must be at least this)',
      millis('--lease-ms', 1, Number.MAX_SAFE_INTEGER),
      30_000,
    )
    .option('--batch-size <n>', 'jobs claimed per round', millis('--batch-size', 1), 1_000)
    .option('--poll-ms <ms>', 'sleep when nothing is claimable', millis('--poll-ms', 1), 200)
    .option('--stats-every-ms <ms>', 'print metrics this often', millis('--stats-every-ms', 1), 10_000)
    .action(async (options: RelayCommandOptions) => {
      await runRelayCommand(options, io);
    });
}
