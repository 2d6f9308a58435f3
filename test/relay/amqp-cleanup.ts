import amqp from 'amqplib';

/**
 * Deletes what an AMQP relay test declared: the consumer's queue and its dead-letter queue, the relay's exchange and
 * the dead-letter exchange (named after the queue, as the consumer declares it).
 */
export async function deleteAmqpTopology(url: string, queue: string, exchange: string): Promise<void> {
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    await channel.deleteQueue(`${queue}.dead-letter`);
    await channel.deleteExchange(exchange);
    await channel.deleteExchange(`${queue}.dead-letter`);
  } finally {
    await connection.close();
  }
}
