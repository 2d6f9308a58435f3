import { Hono } from 'hono';
import { honoAnswer, readHonoBody, refusedBody } from '../../http/hono-body.js';
import { CLICK_ANSWERS } from './click-answers.js';
import { type ClickMerchant, clickResponse } from './click-merchant.js';

/** Options of {@link honoClick}. */
export interface HonoClickOptions {
  /** Route paths Click calls (the Prepare URL and the Complete URL may be one). @default ['/click/prepare', '/click/complete'] */
  readonly paths?: readonly string[];
  /** Largest body read, in bytes; a larger one gets 413. @default 16_384 */
  readonly maxBodyBytes?: number;
}

/**
 * Hono app for Click's SHOP API: mount it with `app.route('/', honoClick(merchant))`; Click then posts its
 * form-encoded Prepare and Complete to `paths`. The body is read exactly (the `sign_string` covers its values) and
 * handed to `merchant.handle`; every answer is HTTP 200 with a JSON body, as Click reads it. GET, PUT, DELETE and
 * PATCH get error -8 (a request Click never sends); a body over `maxBodyBytes` gets 413.
 * @see fixtures click/protocol.json; STYLE pattern 8 (adapters translate).
 */
export function honoClick(merchant: ClickMerchant, options: HonoClickOptions = {}): Hono {
  const paths = options.paths ?? ['/click/prepare', '/click/complete'];
  const limit = options.maxBodyBytes ?? 16_384;
  const app = new Hono();
  for (const path of paths) {
    app.post(path, async (c) => {
      const read = await readHonoBody(c, limit);
      if (read.kind !== 'body') return refusedBody(read);
      return honoAnswer(await merchant.handle({ rawBody: read.bytes }));
    });
    app.on(['GET', 'PUT', 'DELETE', 'PATCH'], path, () => {
      const echo = { action: null, clickTransId: null, merchantTransId: null };
      return honoAnswer(clickResponse(echo, { answer: CLICK_ANSWERS.badRequest, transaction: null }));
    });
  }
  return app;
}
