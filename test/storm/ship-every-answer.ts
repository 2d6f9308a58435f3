import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HeldOrderCounts } from '../../packages/storm/src/provider/storm-target-capabilities.js';

/**
 * A deliberately broken shop in front of the reference service: it forwards Click's (or Uzum Bank's) calls to the
 * service and ships the goods itself on EVERY Complete answered 0 (every /confirm answered CONFIRMED), repeats
 * included, instead of the service's guarded fulfilment. The storm must catch the double fulfilment.
 */
export interface ShipEveryAnswer {
  /** The Click URLs of the shop (for `provider: 'click'`). */
  readonly clickUrls: { readonly prepareUrl: string; readonly completeUrl: string };
  /** The Uzum webhook base URL of the shop (for `provider: 'uzum'`). */
  readonly uzumUrl: string;
  /** `read` with the fulfilments replaced by the shop's own shipments of the order. */
  readOrder<Ref>(read: (ref: Ref) => Promise<HeldOrderCounts>): (ref: Ref) => Promise<HeldOrderCounts>;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the broken shop for `provider` in front of the service at `service`. */
export async function shipEveryAnswer(service: string, provider: 'click' | 'uzum'): Promise<ShipEveryAnswer> {
  const shipped = new Map<string, number>();
  const orderOfTrans = new Map<string, string>();
  const ship = (orderId: string) => shipped.set(orderId, (shipped.get(orderId) ?? 0) + 1);
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const headers: Record<string, string> = { 'content-type': String(req.headers['content-type'] ?? '') };
      if (req.headers.authorization !== undefined) headers.authorization = req.headers.authorization;
      const answer = await fetch(`${service}${req.url}`, { method: 'POST', headers, body });
      const text = await answer.text();
      const json = (() => {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          return {};
        }
      })();
      if (provider === 'click' && req.url === '/click/complete' && json.error === 0) {
        ship(new URLSearchParams(body).get('merchant_trans_id') ?? '');
      }
      if (provider === 'uzum') {
        const sent = JSON.parse(body) as { transId?: string; params?: { account?: string } };
        if (req.url === '/uzum/create' && sent.transId !== undefined) {
          orderOfTrans.set(sent.transId, String(sent.params?.account));
        }
        if (req.url === '/uzum/confirm' && json.status === 'CONFIRMED')
          ship(orderOfTrans.get(sent.transId ?? '') ?? '');
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    })().catch(() => {
      res.writeHead(502).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    clickUrls: { prepareUrl: `${url}/click/prepare`, completeUrl: `${url}/click/complete` },
    uzumUrl: `${url}/uzum`,
    readOrder: (read) => async (ref) => {
      const counts = await read(ref);
      const id = typeof ref === 'string' ? ref : String((ref as { account?: unknown }).account);
      return { ...counts, fulfilments: shipped.get(id) ?? 0 };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
