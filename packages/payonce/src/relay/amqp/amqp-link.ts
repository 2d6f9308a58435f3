import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { importPeer } from '../../core/import-peer.js';

/** One AMQP connection with one confirm channel; `closed` resolves when either is gone. */
export interface AmqpLink {
  readonly connection: ChannelModel;
  readonly channel: ConfirmChannel;
  readonly closed: Promise<Error | undefined>;
  close(): Promise<void>;
}

/**
 * Opens a connection to `url` (`amqp://user:pass@host:port/vhost`) and a confirm channel on it. The connection
 * name shows in the RabbitMQ management UI. amqplib is an optional peer, imported here only.
 * @throws {MissingPeer} amqplib is not installed.
 * @throws {Error} the driver's error when the broker refuses the connection.
 */
export async function connectAmqp(url: string, name: string): Promise<AmqpLink> {
  const amqp = await importPeer('amqplib', 'payonce/relay', () => import('amqplib'));
  const connection = await amqp.connect(url, { clientProperties: { connection_name: name } });
  let channel: ConfirmChannel;
  try {
    channel = await connection.createConfirmChannel();
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  const closed = new Promise<Error | undefined>((resolve) => {
    connection.on('error', () => {});
    channel.on('error', () => {});
    connection.on('close', (error?: Error) => resolve(error ?? new Error('AMQP connection closed')));
    channel.on('close', () => resolve(new Error('AMQP channel closed')));
  });
  return {
    connection,
    channel,
    closed,
    async close() {
      await connection.close().catch(() => {});
    },
  };
}
