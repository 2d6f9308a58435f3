import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the target received. */
export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Uint8Array;
  readonly body: string;
  readonly atMs: number;
}

/** How the target answers the n-th request (from 1). */
export type Responder = (received: Received, n: number) => { status: number; headers?: Record<string, string> };

/** A loopback webhook receiver that records every request and answers with `respond` (200 by default) after `answerDelayMs`. */
export async function startTarget(respond: Responder = () => ({ status: 200 }), answerDelayMs = 0) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const entry: Received = {
        headers: req.headers,
        rawBody: new Uint8Array(raw),
        body: raw.toString('utf8'),
        atMs: Date.now(),
      };
      received.push(entry);
      const n = received.length;
      const answer = respond(entry, n);
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(`answer ${n}`);
      }, answerDelayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/stripe`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
