import { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { InvalidOption } from '../../core/errors.js';
import { readLimited } from '../../http/limited-body.js';
import type { UzumMerchant, UzumResponse } from './uzum-merchant.js';

/** Options of {@link expressUzum}. */
export interface ExpressUzumOptions {
  /** Largest body read, in bytes; a larger one gets 413. @default 65_536 */
  readonly maxBodyBytes?: number;
}

function send(res: Response, response: UzumResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.end(response.body);
}

/**
 * Express 5 handler for the five Uzum Merchant API webhooks: mount it with `app.use('/uzum', expressUzum(uzum))`
 * (before a global JSON parser, or keep the bytes with `express.raw()`); Uzum Bank then posts to `/uzum/check`,
 * `/uzum/create`, `/uzum/confirm`, `/uzum/reverse`, `/uzum/status`. POST bodies go to `merchant.handle` with the
 * path; any other HTTP method is passed to `next` (Express answers 404). A body an earlier parser turned into an
 * object is passed to `next` as {@link InvalidOption} (`body`): the exact bytes are gone.
 * @see fixtures uzum/protocol.json "transport"; STYLE pattern 8 (adapters translate).
 */
export function expressUzum(merchant: UzumMerchant, options: ExpressUzumOptions = {}): RequestHandler {
  const limit = options.maxBodyBytes ?? 65_536;
  return async function uzumEndpoint(req: Request, res: Response, next) {
    try {
      if (req.method !== 'POST') return next();
      let rawBody: Uint8Array;
      if (Buffer.isBuffer(req.body)) rawBody = req.body;
      else if (req.body !== undefined || req.readableEnded) {
        throw new InvalidOption(
          'body',
          'expressUzum needs the raw body: mount it before express.json(), or use express.raw()',
        );
      } else {
        const read = await readLimited(Readable.toWeb(req) as ReadableStream<Uint8Array>, limit);
        if (read.kind === 'aborted') return;
        if (read.kind === 'too-large') return void res.status(413).end();
        rawBody = read.bytes;
      }
      send(res, await merchant.handle({ path: req.path, rawBody, headers: req.headers }));
    } catch (error) {
      next(error);
    }
  };
}
