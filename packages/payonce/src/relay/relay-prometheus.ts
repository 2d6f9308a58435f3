import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import { requirePeer } from '../core/import-peer.js';
import type { OutboxRelay } from './outbox-relay.js';

/**
 * Registers the metrics of `relay` on `registry` (read at each scrape): `<prefix>relay_published_total`,
 * `<prefix>relay_broker_duplicates_total` (acks flagged duplicate by the broker), `<prefix>relay_unroutable_total`,
 * `<prefix>relay_failed_total`, `<prefix>relay_dead_letters_total`, and the gauge `<prefix>relay_lag_seconds`: age
 * of the oldest unsent job of the relay's topics (0 when none). Counters are this process's, since the relay
 * was created. @see Prometheus exposition format 0.0.4; docs/relay.md "Metrics".
 * prom-client is loaded here, on the first call, so importing `payonce/relay` does not load it.
 * @throws {MissingPeer} prom-client is not installed.
 * @throws {Error} from prom-client when a metric of that name is already registered.
 */
export function registerRelayMetrics<DB>(relay: OutboxRelay<DB>, registry: Registry, prefix = 'payonce_'): void {
  const { Gauge } = requirePeer<typeof PromClient>('prom-client', 'registerRelayMetrics');
  const registers = [registry];
  const counter = (name: string, help: string, read: () => number) =>
    new Gauge({
      name: `${prefix}${name}`,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  counter(
    'relay_published_total',
    'Outbox jobs the broker acknowledged and the relay marked sent.',
    () => relay.counters.published,
  );
  counter(
    'relay_broker_duplicates_total',
    'Broker acks flagged duplicate (JetStream dropped a republish inside its duplicate window).',
    () => relay.counters.duplicates,
  );
  counter(
    'relay_unroutable_total',
    'Publishes the broker could route nowhere (not marked sent).',
    () => relay.counters.unroutable,
  );
  counter(
    'relay_failed_total',
    'Publishes that failed otherwise (timeout, connection): retried.',
    () => relay.counters.failed,
  );
  counter(
    'relay_dead_letters_total',
    'Outbox jobs the relay moved to the dead letter.',
    () => relay.counters.deadLettered,
  );
  new Gauge({
    name: `${prefix}relay_lag_seconds`,
    help: 'Age of the oldest unsent outbox job of the relay topics, in seconds (0 when none).',
    registers,
    async collect() {
      this.set((await relay.lagMs().catch(() => 0)) / 1_000);
    },
  });
}
