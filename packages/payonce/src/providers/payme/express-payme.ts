import { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { InvalidOption } from '../../core/errors.js';
import { readLimited } from '../../http/limited-body.js';
import { PAYME_ERROR_CODES, paymeError } from './payme-errors.js';
import type { PaymeMerchant, PaymeResponse } from './payme-merchant.js';

/** Options of {@link expressPayme}. */
export interface ExpressPaymeOptions {
  /** Largest body read, in bytes; a larger one gets 413. @default 65_536 */
  readonly maxBodyBytes?: number;
}

function send(res: Response, response: PaymeResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.end(response.body);
}

/**
 * Express 5 handler for the Payme Merchant API endpoint: mount it with `app.use('/payme', expressPayme(payme))`
 * (before a global JSON parser, or keep the bytes with `express.raw()`). POST bodies go to `merchant.handle` with
 * `req.ip` as the client; any other HTTP method is answered -32300 (HTTP 200, as Payme expects every answer). A body
 * an earlier parser turned into an object is passed to `next` as {@link InvalidOption} (`body`): the exact bytes are gone.
 * @see fixtures payme/errors.json ("-32300": request method is not POST); STYLE pattern 8 (adapters translate).
 */
export function expressPayme(merchant: PaymeMerchant, options: ExpressPaymeOptions = {}): RequestHandler {
  const limit = options.maxBodyBytes ?? 65_536;
  return async function paymeEndpoint(req: Request, res: Response, next) {
    try {
      if (req.method !== 'POST') {
        const error = paymeError(PAYME_ERROR_CODES.notPost);
        const body = JSON.stringify({ jsonrpc: '2.0', id: null, error });
        return send(res, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
      }
      const client = req.ip;
      let rawBody: Uint8Array;
      if (Buffer.isBuffer(req.body)) rawBody = req.body;
      else if (req.body !== undefined || req.readableEnded) {
        throw new InvalidOption(
          'body',
          'expressPayme needs the raw body: mount it before express.json(), or use express.raw()',
        );
      } else {
        const read = await readLimited(Readable.toWeb(req) as ReadableStream<Uint8Array>, limit);
        if (read.kind === 'aborted') return;
        if (read.kind === 'too-large') return void res.status(413).end();
        rawBody = read.bytes;
      }
      send(res, await merchant.handle({ rawBody, headers: req.headers, client }));
    } catch (error) {
      next(error);
    }
  };
}
