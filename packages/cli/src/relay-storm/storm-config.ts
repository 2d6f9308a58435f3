import type { BrokerTarget } from 'payonce/internal/relay/broker-url.js';
import type { ConsumerSpec } from './storm-broker.js';

/** Command-line configuration of `relay-child` (JSON). Durations in ms. */
export interface RelayChildConfig {
  readonly databaseUrl: string;
  readonly publish: BrokerTarget;
  readonly topic: string;
  readonly relayId: string;
  readonly leaseMs: number;
  readonly batchSize: number;
  /** SIGKILL itself after the broker acknowledged this round (before marking), or `null`. */
  readonly killAfterRound: number | null;
}

/** Command-line configuration of `consumer-child` (JSON). */
export interface ConsumerChildConfig {
  readonly databaseUrl: string;
  readonly consumer: ConsumerSpec;
  /** SIGKILL itself after this many applied commits (before the ack), or `null`. */
  readonly killAfterCommits: number | null;
}
