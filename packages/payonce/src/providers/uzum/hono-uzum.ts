import { Hono } from 'hono';
import { honoAnswer, honoHeaders, readHonoBody, refusedBody } from '../../http/hono-body.js';
import type { UzumMerchant } from './uzum-merchant.js';

/** Options of {@link honoUzum}. */
export interface HonoUzumOptions {
  /** Path prefix of the five webhooks (`<prefix>/check`, …). @default '/uzum' */
  readonly prefix?: string;
  /** Largest body read, in bytes; a larger one gets 413. @default 65_536 */
  readonly maxBodyBytes?: number;
}

/**
 * Hono app for the five Uzum Bank Merchant API webhooks: mount it with `app.route('/', honoUzum(merchant))`; Uzum
 * Bank then posts to `<prefix>/check`, `/create`, `/confirm`, `/reverse` and `/status`. The body is read exactly
 * and handed to `merchant.handle` with the path and headers (Basic authorization is checked there); the answer is
 * HTTP 200, or 400 with `status: "FAILED"` and an `errorCode`. A body over `maxBodyBytes` gets 413.
 * @see fixtures/providers/uzum/protocol.json "transport"; STYLE pattern 8 (adapters translate).
 */
export function honoUzum(merchant: UzumMerchant, options: HonoUzumOptions = {}): Hono {
  const prefix = (options.prefix ?? '/uzum').replace(/\/+$/, '');
  const limit = options.maxBodyBytes ?? 65_536;
  const app = new Hono();
  app.post(`${prefix}/:operation`, async (c) => {
    const read = await readHonoBody(c, limit);
    if (read.kind !== 'body') return refusedBody(read);
    return honoAnswer(await merchant.handle({ path: c.req.path, rawBody: read.bytes, headers: honoHeaders(c) }));
  });
  return app;
}
