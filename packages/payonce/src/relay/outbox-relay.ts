import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../core/clock.js';
import { PollLoop } from '../core/poll-loop.js';
import { PAYONCE_ATTRIBUTES as A } from '../otel/attributes.js';
import { recordSeconds } from '../otel/meters.js';
import { inSpan } from '../otel/span-scope.js';
import type { TraceCarrier } from '../otel/trace-context.js';
import { activeTracer } from '../otel/tracing.js';
import { backoffDelayMs } from '../outbox/backoff.js';
import { OUTBOX_TABLE, type OutboxDatabase } from '../outbox/outbox-tables.js';
import { jobTracesOf } from '../outbox/outbox-trace.js';
import { intOf, type SqlTarget } from '../outbox/sql-transaction.js';
import { tablesOf } from '../stores/sql/table-namespace.js';
import { claimRelayBatch } from './claim-relay-batch.js';
import { finishIn, finishRelayed } from './finish-relayed.js';
import { MessageUnroutable } from './message-unroutable.js';
import { type OutboxRelayOptions, type ResolvedRelayOptions, resolveRelayOptions } from './outbox-relay-options.js';
import type { RelayMessage } from './relay-message.js';
import { emptyCounters, type RelayCounters } from './relay-metrics.js';
import type { PublishAck, RelayPublisher } from './relay-publisher.js';

/** What one `runOnce` round did; counts of jobs. */
export interface RelayRound {
  /** Jobs leased this round. */
  readonly claimed: number;
  /**
   * Jobs marked sent this round: those the broker acknowledged in the previous round (marked in this round's claim
   * transaction, one commit for both) or, from `flush`, in this one.
   */
  readonly published: number;
  /** Acknowledged by the broker this round; marked sent by the next round's claim or by `flush`/`stop`. */
  readonly acknowledged: number;
  /** Of `published`, acks flagged duplicate by the broker. */
  readonly duplicates: number;
  /** Publishes that failed (unroutable included): retried later or dead-lettered. */
  readonly failed: number;
  /** Not tried because an earlier job of their aggregate failed this round: back to the queue. */
  readonly released: number;
  /** Acknowledged, but the lease had been taken over before the mark: the new holder publishes (and marks) them. */
  readonly leaseLost: number;
  /** Moved to the outbox dead letter this round. */
  readonly deadLettered: number;
}

interface Chain {
  readonly acked: { message: RelayMessage; ack: PublishAck }[];
  readonly failed: { message: RelayMessage; error: unknown } | null;
  readonly untried: RelayMessage[];
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length <= 2_000 ? text : text.slice(0, 2_000);
}

/** Jobs of one aggregate together, in outbox order; a job without aggregate alone. */
function chainsOf(messages: readonly RelayMessage[]): RelayMessage[][] {
  const byAggregate = new Map<string, RelayMessage[]>();
  const chains: RelayMessage[][] = [];
  for (const message of messages) {
    if (message.aggregateKey === null) {
      chains.push([message]);
      continue;
    }
    let chain = byAggregate.get(message.aggregateKey);
    if (!chain) {
      chain = [];
      byAggregate.set(message.aggregateKey, chain);
      chains.push(chain);
    }
    chain.push(message);
  }
  return chains;
}

/**
 * The outbox relay of issue #14: leases unsent outbox jobs of its `topics` (the worker's lease columns and
 * fencing: status `running`, lease owner, claim count), publishes each to a broker through a `RelayPublisher`,
 * and marks a job sent (`done`) only AFTER the broker acknowledged it — in the transaction that leases the next
 * batch (one commit per round), or in `flush`/`stop`/`drain`. A relay that dies between the ack and the
 * mark leaves the lease to expire; the next relay publishes the job again with the same message id (the outbox
 * job id), which JetStream drops inside its duplicate window and the consumer's inbox (`consumeJetStream`,
 * `consumeRabbitMq`) drops at any time. Jobs of one aggregate (`enqueueOnce(…, { aggregateKey })`) are published
 * in outbox order, one after the other's ack, by one relay at a time; different aggregates are published
 * concurrently. A failed publish is retried with backoff (`backoffDelayMs`), later jobs of its aggregate wait,
 * and after `maxAttempts` claims the job goes to the outbox dead letter. Guarantee: at-least-once to the broker,
 * exactly-once in effect with an idempotent consumer. @see docs/relay.md.
 * @example
 * const relay = new OutboxRelay(store, natsPublisher({ servers: 'nats://127.0.0.1:4222', stream: 'PAYONCE' }), {
 *   topics: ['order.paid', 'order.fulfilled'],
 * });
 * await relay.prepare();
 * relay.start();
 */
export class OutboxRelay<DB> {
  readonly options: ResolvedRelayOptions;
  private readonly target: SqlTarget<DB>;
  private readonly publisher: RelayPublisher;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly onAcknowledged: OutboxRelayOptions['onAcknowledged'];
  private readonly totals: RelayCounters = emptyCounters();
  /** Acknowledged by the broker, not yet marked sent (marked in the next claim transaction, or by `flush`). */
  private unmarked: RelayMessage[] = [];
  private readonly loop: PollLoop;
  private prepared = false;

  /** @throws {InvalidOption} for a bad option (see `OutboxRelayOptions`). */
  constructor(target: SqlTarget<DB>, publisher: RelayPublisher, options: OutboxRelayOptions) {
    this.target = target;
    this.publisher = publisher;
    this.options = resolveRelayOptions(options, randomUUID());
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.onError = options.onError ?? (() => {});
    this.loop = new PollLoop({
      round: () => this.loopRound(),
      idleMs: this.options.pollIntervalMs,
      onError: (error) => this.onError(error),
    });
    this.onAcknowledged = options.onAcknowledged;
  }

  /** Counters since construction (a copy). */
  get counters(): Readonly<RelayCounters> {
    return Object.freeze({ ...this.totals });
  }

  /**
   * Creates or checks what the broker needs (JetStream stream with a duplicate window ≥ `leaseMs`, RabbitMQ
   * exchange). Call once before `start`. @throws {InvalidOption} when an existing stream does not fit.
   */
  async prepare(): Promise<void> {
    await this.publisher.prepare(this.options.leaseMs);
  }

  /**
   * One round: in ONE transaction, mark the previous round's acknowledged jobs sent and lease the next batch;
   * publish the batch; remember what the broker acknowledged (marked by the next round or `flush`).
   */
  async runOnce(): Promise<RelayRound> {
    const { relayId, leaseMs, batchSize, topics, maxAttempts } = this.options;
    const carried = this.unmarked;
    this.unmarked = [];
    let marked = 0;
    const nowMs = this.clock.now();
    const claimed = await claimRelayBatch(this.target, { topics, relayId, nowMs, leaseMs, batchSize }, async (db) => {
      marked = await finishIn(db, relayId, carried, { kind: 'sent' }, nowMs);
    }).catch((error: unknown) => {
      this.unmarked = [...carried, ...this.unmarked];
      throw error;
    });
    this.totals.published += marked;
    this.totals.leaseLost += carried.length - marked;
    const expired = claimed.filter((message) => message.attempt > maxAttempts);
    const live = claimed.filter((message) => message.attempt <= maxAttempts);
    const traces =
      activeTracer() === undefined
        ? undefined
        : await jobTracesOf(
            this.target,
            live.map((m) => m.id),
          );
    const chains = await Promise.all(chainsOf(live).map((chain) => this.publishChain(chain, traces)));
    const acked = chains.flatMap((chain) => chain.acked);
    if (acked.length > 0) {
      await this.onAcknowledged?.(acked.map((entry) => ({ message: entry.message, duplicate: entry.ack.duplicate })));
    }
    this.unmarked = acked.map((entry) => entry.message);
    const now = this.clock.now();
    const duplicates = acked.filter((entry) => entry.ack.duplicate).length;
    const failures = chains.flatMap((chain) => (chain.failed ? [chain.failed] : []));
    const untried = chains.flatMap((chain) => chain.untried);
    await finishRelayed(this.target, relayId, untried, { kind: 'release' }, now);
    let dead = await this.deadLetter(
      expired,
      `the lease expired before the batch was marked on each of ${maxAttempts} claims: the relay died or its publish ran longer than the lease`,
      now,
    );
    for (const failure of failures) dead += await this.retryOrDead(failure.message, failure.error, now);
    this.count(duplicates, failures, dead);
    return Object.freeze({
      claimed: claimed.length,
      published: marked,
      acknowledged: acked.length,
      duplicates,
      failed: failures.length,
      released: untried.length,
      leaseLost: carried.length - marked,
      deadLettered: dead,
    });
  }

  /** Marks the jobs acknowledged by the last round sent now (`stop` and `drain` do it too); returns how many. */
  async flush(): Promise<number> {
    const carried = this.unmarked;
    this.unmarked = [];
    const marked = await finishRelayed(this.target, this.options.relayId, carried, { kind: 'sent' }, this.clock.now());
    this.totals.published += marked;
    this.totals.leaseLost += carried.length - marked;
    return marked;
  }

  /** Runs rounds until one claims nothing (its transaction marks the last acks); returns the jobs marked sent. */
  async drain(): Promise<number> {
    let published = 0;
    for (;;) {
      const round = await this.runOnce();
      published += round.published;
      if (round.claimed === 0) return published + (await this.flush());
    }
  }

  /**
   * Age in ms of the oldest unsent job of this relay's topics (queued or leased), 0 when none: the relay lag.
   */
  async lagMs(): Promise<number> {
    const row = await tablesOf<OutboxDatabase>(this.target)
      .selectFrom(OUTBOX_TABLE)
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .where('topic', 'in', [...this.options.topics])
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    const oldest = row?.oldest;
    if (oldest === null || oldest === undefined) return 0;
    return Math.max(0, this.clock.now() - intOf(oldest as number | string | bigint, 'created_at'));
  }

  /**
   * Starts the loop: `prepare` until it succeeds, then `runOnce` again and again, sleeping `pollIntervalMs` after
   * a round that published nothing or failed (errors go to `onError`, e.g. broker or database down). Idempotent.
   */
  start(): void {
    if (!this.loop.running) this.prepared = false;
    this.loop.start();
  }

  /**
   * Stops the loop after the current round and marks its acknowledged jobs sent; resolves when done (the
   * publisher stays open). @throws the database error of that last mark (the jobs are then published again later).
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flush();
  }

  /** One round of `start()`: `prepare` until it has succeeded once, then `runOnce`; busy when it published. */
  private async loopRound(): Promise<boolean> {
    if (!this.prepared) {
      await this.prepare();
      this.prepared = true;
    }
    const round = await this.runOnce();
    return round.claimed > 0 && round.acknowledged > 0;
  }

  /** Publishes one aggregate's jobs one after the other; stops at the first failure. */
  private async publishChain(
    chain: readonly RelayMessage[],
    traces: ReadonlyMap<string, TraceCarrier> | undefined,
  ): Promise<Chain> {
    const acked: Chain['acked'] = [];
    for (let i = 0; i < chain.length; i++) {
      const message = chain[i] as RelayMessage;
      try {
        acked.push({ message, ack: await this.publishOne(message, traces) });
      } catch (error) {
        return { acked, failed: { message, error }, untried: chain.slice(i + 1) };
      }
    }
    return { acked, failed: null, untried: [] };
  }

  /**
   * Publishes one message; with an OpenTelemetry SDK, in the span `send <topic>` (a child of the job's enqueue span)
   * whose trace context the message carries as `traceparent`. Records `payonce.relay.lag`.
   */
  private async publishOne(
    message: RelayMessage,
    traces: ReadonlyMap<string, TraceCarrier> | undefined,
  ): Promise<PublishAck> {
    recordSeconds((all) => all.relayLag, this.clock.now() - message.createdAtMs, {
      'messaging.destination.name': message.topic,
    });
    if (traces === undefined) return await this.publisher.publish(message);
    const parent = traces.get(message.id);
    const attributes = {
      'messaging.system': this.publisher.broker === 'amqp' ? 'rabbitmq' : 'nats',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      'messaging.destination.name': message.topic,
      'messaging.message.id': message.id,
      [A.jobAttempt]: message.attempt,
    };
    const spec = { kind: 'producer' as const, attributes, ...(parent ? { parent } : {}) };
    return await inSpan(`send ${message.topic}`, spec, async (span) => {
      const ack = await this.publisher.publish(Object.freeze({ ...message, trace: span.carrier() }));
      span.set('payonce.relay.duplicate', ack.duplicate);
      return ack;
    });
  }

  private async retryOrDead(message: RelayMessage, error: unknown, nowMs: number): Promise<number> {
    const text = errorText(error);
    if (message.attempt >= this.options.maxAttempts) return this.deadLetter([message], text, nowMs);
    const { backoffBaseMs, backoffMaxMs } = this.options;
    const availableAtMs = nowMs + backoffDelayMs(message.attempt, backoffBaseMs, backoffMaxMs, this.random);
    await finishRelayed(
      this.target,
      this.options.relayId,
      [message],
      { kind: 'retry', availableAtMs, error: text },
      nowMs,
    );
    return 0;
  }

  private deadLetter(messages: readonly RelayMessage[], error: string, nowMs: number): Promise<number> {
    return finishRelayed(this.target, this.options.relayId, messages, { kind: 'dead', error }, nowMs);
  }

  private count(duplicates: number, failures: readonly { error: unknown }[], dead: number): void {
    const totals = this.totals;
    totals.duplicates += duplicates;
    totals.deadLettered += dead;
    for (const { error } of failures) {
      if (error instanceof MessageUnroutable) totals.unroutable++;
      else totals.failed++;
    }
  }
}
