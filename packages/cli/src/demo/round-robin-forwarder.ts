import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/** A tiny load balancer in front of the demo's replicas: where the sandbox sends its webhooks. */
export interface RoundRobinForwarder {
  /** `http://127.0.0.1:<port>`: a request to `<url>/<path>` goes to `<replica>/<path>`. */
  readonly url: string;
  /** Requests forwarded per replica index (for the report). */
  readonly forwarded: readonly number[];
  close(): Promise<void>;
}

/** Headers that describe one hop only (RFC 9110 §7.6.1) or that undici sets itself. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts an HTTP forwarder on a free loopback port that sends each request to the next replica in turn
 * (round-robin), with the exact body bytes and headers (so webhook signatures still verify), and relays the answer.
 * A replica that refuses the connection (killed, restarting) is skipped for that request, as a load balancer's
 * health check would; when none answers, 502 (the provider redelivers later).
 */
export async function startRoundRobinForwarder(replicas: readonly string[]): Promise<RoundRobinForwarder> {
  const dispatcher = new Agent({ connections: 32, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const forwarded = replicas.map(() => 0);
  let turn = 0;
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await bodyOf(req);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const first = turn++ % replicas.length;
    for (let offset = 0; offset < replicas.length; offset++) {
      const index = (first + offset) % replicas.length;
      try {
        const answer = await request(`${replicas[index]}${req.url ?? '/'}`, {
          method: (req.method ?? 'GET') as 'POST',
          headers,
          body: body.length > 0 ? body : undefined,
          dispatcher,
        });
        const bytes = Buffer.from(await answer.body.arrayBuffer());
        forwarded[index] = (forwarded[index] ?? 0) + 1;
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_HEADERS.has(name))
            out[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        res.writeHead(answer.statusCode, out).end(bytes);
        return;
      } catch {
        // That replica is down: try the next one.
      }
    }
    res.writeHead(502, { 'content-type': 'text/plain' }).end('no replica answered');
  };
  const server: Server = createServer((req, res) => {
    forward(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close();
    },
  };
}
