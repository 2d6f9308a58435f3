import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import { importPeer } from '../../core/import-peer.js';

/** One NATS connection with its JetStream client and manager. */
export interface NatsLink {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** A fresh, empty header set. */
  headersOf(): MsgHdrs;
  /** Drains and closes the connection. */
  close(): Promise<void>;
}

/**
 * Connects to `servers` (reconnecting forever, every 250 ms, so a broker restart only delays publishes) and
 * opens JetStream on it. The client packages are optional peers, imported here only.
 * @throws {MissingPeer} a NATS client package is not installed.
 */
export async function connectNats(servers: string | readonly string[], name: string): Promise<NatsLink> {
  const transport = await importPeer(
    '@nats-io/transport-node',
    'payonce/relay',
    () => import('@nats-io/transport-node'),
  );
  const jetstreamModule = await importPeer('@nats-io/jetstream', 'payonce/relay', () => import('@nats-io/jetstream'));
  const nc = await transport.connect({
    servers: typeof servers === 'string' ? servers : [...servers],
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
  });
  const js = jetstreamModule.jetstream(nc);
  const jsm = await jetstreamModule.jetstreamManager(nc);
  return {
    nc,
    js,
    jsm,
    headersOf: () => transport.headers(),
    async close() {
      await nc.drain().catch(() => nc.close());
    },
  };
}
