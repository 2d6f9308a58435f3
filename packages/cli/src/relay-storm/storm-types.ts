import type { SqlTarget } from 'payonce/internal/outbox/sql-transaction.js';

/** Scenario ids of the relay storm (issue #14 "Relay storm" (a)–(e)). */
export type RelayScenarioId = 'a' | 'b' | 'c' | 'd' | 'e';

/** Everything a scenario needs. Durations in ms. */
export interface RelayStormContext {
  readonly databaseUrl: string;
  /** The driver's own connection to the database (enqueue, consumer in process, verdict). */
  readonly target: SqlTarget<unknown>;
  readonly broker: 'nats' | 'amqp';
  readonly brokerUrl: string;
  readonly messages: number;
  readonly kills: number;
  readonly aggregates: number;
  readonly leaseMs: number;
  readonly log: (line: string) => void;
}

/** The outcome of one scenario, as the table and the JSON report show it. */
export interface RelayScenarioResult {
  readonly id: RelayScenarioId;
  readonly title: string;
  readonly messages: number;
  /** Distinct messages whose effect is in the consumer's database. */
  readonly applied: number;
  readonly lost: number;
  /** Effects applied more than once (rows − distinct). */
  readonly doubled: number;
  readonly outOfOrder: number;
  /** Outbox jobs of the run not marked sent at the end. */
  readonly unsent: number;
  /** Broker acks the relays received (first publishes and republishes). */
  readonly acked: number;
  /** Of those, dropped by the broker as duplicates (JetStream `Nats-Msg-Id` inside the window). */
  readonly droppedByBroker: number;
  /** Deliveries the consumer's inbox recognised and acked without running the effect. */
  readonly absorbedByInbox: number;
  /** Messages the JetStream stream holds at the end (NATS), `null` for RabbitMQ. */
  readonly stored: number | null;
  /** Relay / consumer processes killed with SIGKILL, or broker restarts. */
  readonly faults: number;
  readonly passed: boolean;
  readonly seconds: number;
  readonly notes: readonly string[];
}
