import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './service-harness.js';

/**
 * Sends `text` to the service on a fresh socket and stalls; resolves, once the server closed the socket, with what
 * it sent (never resolves while the socket stays open). The listeners are attached before the first byte is sent.
 */
function stalled(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port) });
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk.toString('latin1');
  });
  socket.once('connect', () => socket.write(text));
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

// Slow-loris: a client that never finishes its headers or its body must not hold a connection for ever (outside
// attack on the provider endpoints, M1). The service closes it after `requestTimeoutMs` with 408 when it can.
describe('reference service: stalled clients', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ paymeKeys: 'placeholder-payme-key', requestTimeoutMs: 500 });
  });
  afterAll(async () => h?.close());

  it('closes a connection whose headers or body never finish, answering 408 REQUEST_TIMEOUT', async () => {
    const answers = await Promise.all([
      stalled(h.service.url, 'POST /payme HTTP/1.1\r\nHost: x\r\n'),
      stalled(
        h.service.url,
        'POST /payme HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
      ),
    ]);
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408 |^$/);
    expect(answers.some((answer) => answer.includes('REQUEST_TIMEOUT'))).toBe(true);
    const health = await fetch(`${h.service.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
