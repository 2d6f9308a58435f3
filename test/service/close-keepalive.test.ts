import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SECRET, SERVICE_ID } from '../providers/click/click-fixtures.js';
import { startLocalService } from './local-provider-harness.js';

/**
 * A service closing while a keep-alive request is in flight (a provider's webhook delivery or retry landing just
 * then): the request is answered, then its connection goes idle, and the close must not wait for the keep-alive
 * timeout (72 s in fastify). Seen as a Telegram storm test's teardown hanging when the sandbox's retry arrived.
 */
describe('closing the service with a keep-alive request in flight', () => {
  it('answers the request, then closes its idle connection and finishes', async () => {
    const local = await startLocalService({ clickServiceId: SERVICE_ID, clickSecretKey: SECRET });
    const { hostname, port } = new URL(local.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const body = JSON.stringify({ orderId: 'ord_close_1', amountMinor: 1000, currency: 'UZS' });
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // The headers and half the body before the close: the request is in flight when the close begins.
    socket.write(
      `POST /orders HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(100);
    const closing = local.close().then(() => 'closed' as const);
    await sleep(200);
    socket.write(body.slice(10));
    const ended = await Promise.race([closing, sleep(40_000).then(() => 'still open after 40 s' as const)]);
    expect(answer).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(ended).toBe('closed');
    await socketClosed;
  }, 60_000);
});
