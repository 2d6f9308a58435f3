import { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { InvalidOption } from '../../core/errors.js';
import { readLimited } from '../../http/limited-body.js';
import { CLICK_ANSWERS } from './click-answers.js';
import { type ClickMerchant, type ClickResponse, clickResponse } from './click-merchant.js';

/** Options of {@link expressClick}. */
export interface ExpressClickOptions {
  /** Largest body read, in bytes; a larger one gets 413. @default 16_384 */
  readonly maxBodyBytes?: number;
}

function send(res: Response, response: ClickResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.end(response.body);
}

/**
 * Express 5 handler for Click's SHOP API (Prepare and Complete): mount it at both URLs, e.g.
 * `app.use(['/click/prepare', '/click/complete'], expressClick(click))`, before a global body parser (or keep the
 * bytes with `express.raw({ type: 'application/x-www-form-urlencoded' })`). POST bodies (Click's form) go to
 * `merchant.handle`; any other HTTP method is answered -8 (HTTP 200, JSON). A body an earlier parser turned into an
 * object is passed to `next` as {@link InvalidOption} (`body`): the exact bytes the signature covers are gone.
 * @see https://docs.click.uz/en/click-api-request/ (POST, form fields); STYLE pattern 8 (adapters translate).
 */
export function expressClick(merchant: ClickMerchant, options: ExpressClickOptions = {}): RequestHandler {
  const limit = options.maxBodyBytes ?? 16_384;
  return async function clickEndpoint(req: Request, res: Response, next) {
    try {
      if (req.method !== 'POST') {
        const echo = { action: null, clickTransId: null, merchantTransId: null };
        return send(res, clickResponse(echo, { answer: CLICK_ANSWERS.badRequest, transaction: null }));
      }
      let rawBody: Uint8Array;
      if (Buffer.isBuffer(req.body)) rawBody = req.body;
      else if (req.body !== undefined || req.readableEnded) {
        throw new InvalidOption(
          'body',
          'expressClick needs the raw body: mount it before express.urlencoded(), or use express.raw()',
        );
      } else {
        const read = await readLimited(Readable.toWeb(req) as ReadableStream<Uint8Array>, limit);
        if (read.kind === 'aborted') return;
        if (read.kind === 'too-large') return void res.status(413).end();
        rawBody = read.bytes;
      }
      send(res, await merchant.handle({ rawBody }));
    } catch (error) {
      next(error);
    }
  };
}
