import { type Context, Hono } from 'hono';
import { honoAnswer, honoHeaders, readHonoBody, refusedBody } from '../../http/hono-body.js';
import { PAYME_ERROR_CODES, paymeError } from './payme-errors.js';
import type { PaymeMerchant } from './payme-merchant.js';

/** Options of {@link honoPayme}. */
export interface HonoPaymeOptions {
  /** Route path of the Merchant API endpoint. @default '/payme' */
  readonly path?: string;
  /** Largest body read, in bytes; a larger one gets 413. @default 65_536 */
  readonly maxBodyBytes?: number;
  /**
   * The sender's IP address, checked against the engine's `allowIps`. @default the socket's address under
   * `@hono/node-server` (`c.env.incoming.socket.remoteAddress`); behind a proxy, give the address your proxy
   * vouches for.
   */
  readonly clientIp?: (c: Context) => string | undefined;
}

/** The socket address `@hono/node-server` exposes as `c.env.incoming`; `undefined` on other runtimes. */
function nodeSocketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/**
 * Hono app for the Payme Merchant API endpoint: mount it with `app.route('/', honoPayme(merchant))`. A POST body is
 * read exactly (no JSON parser touches it) and handed to `merchant.handle` with its headers and the sender's
 * address; every answer is HTTP 200 with a JSON-RPC body, as Payme reads it. GET, PUT, DELETE and PATCH get Payme's
 * -32300 "not POST" error; a body over `maxBodyBytes` gets 413.
 * @see fixtures payme/errors.json (-32300); STYLE pattern 8 (adapters translate).
 */
export function honoPayme(merchant: PaymeMerchant, options: HonoPaymeOptions = {}): Hono {
  const path = options.path ?? '/payme';
  const limit = options.maxBodyBytes ?? 65_536;
  const clientIp = options.clientIp ?? nodeSocketAddress;
  const app = new Hono();
  app.post(path, async (c) => {
    const read = await readHonoBody(c, limit);
    if (read.kind !== 'body') return refusedBody(read);
    return honoAnswer(await merchant.handle({ rawBody: read.bytes, headers: honoHeaders(c), client: clientIp(c) }));
  });
  app.on(['GET', 'PUT', 'DELETE', 'PATCH'], path, () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: paymeError(PAYME_ERROR_CODES.notPost) });
    return honoAnswer({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
  });
  return app;
}
