import { Readable } from 'node:stream';
import { type Request, type Response, Router } from 'express';
import type { HttpResponse } from '../http/http-exchange.js';
import type { WebhookIntake } from './intake.js';
import { bodyBuffer, declaresTooLarge, readLimited } from './webhook-body.js';

export { keepRawBody } from '../http/keep-raw-body.js';

/** Options of {@link expressWebhooks}. */
export interface ExpressWebhooksOptions {
  /** Route path; must contain the `:provider` parameter. @default '/webhooks/:provider' */
  readonly path?: string;
}

/** A request whose body an earlier parser consumed but kept as bytes (`express.json({ verify: keepRawBody })`). */
type RequestWithRawBody = Request & { rawBody?: unknown };

function send(res: Response, response: HttpResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.setHeader('content-length', response.body.byteLength);
  res.end(bodyBuffer(response));
}

/** The bytes an earlier middleware already read, or `undefined` when the body stream is still unread. */
function consumedBody(req: RequestWithRawBody): Uint8Array | null | undefined {
  if (Buffer.isBuffer(req.rawBody)) return req.rawBody;
  if (Buffer.isBuffer(req.body)) return req.body; // express.raw() ran first
  if (req.readableEnded || req.body !== undefined) return null; // parsed into an object: the exact bytes are gone
  return undefined;
}

/**
 * Express 5 router with `POST /webhooks/:provider` for a webhook intake, equal to `fastifyWebhooks`: the body is
 * read as the exact bytes received (any content type, none needed), up to `intake.maxBodyBytes` — a declared or
 * actual body over the limit is answered by `intake.rejectTooLarge` (413 problem+json, journaled) before anything
 * else runs; an unknown provider falls through to the app's 404. Every answer (acknowledgement, replay,
 * problem+json) is the intake's response, sent byte for byte. Mount it before any global body parser, or keep the
 * raw bytes in `req.rawBody` (`express.json({ verify: keepRawBody })`): a body an earlier parser turned into an
 * object is refused 500 `RAW_BODY_REQUIRED` (journaled), never verified on re-serialised JSON.
 * @see docs/design.md §5 "Order of work"; `fastifyWebhooks`; STYLE pattern 8 (adapters translate, nothing else).
 * @example app.use(expressWebhooks(intake)); // before app.use(express.json())
 */
export function expressWebhooks(intake: WebhookIntake, options: ExpressWebhooksOptions = {}): Router {
  const path = options.path ?? '/webhooks/:provider';
  const router = Router();
  router.post(path, async function webhookDelivery(req: RequestWithRawBody, res, next) {
    try {
      const provider = String(req.params.provider);
      if (!intake.has(provider)) return next();
      const client = req.ip; // read before the body: a refused stream's socket no longer knows its peer
      if (declaresTooLarge(req.get('content-length'), intake.maxBodyBytes)) {
        req.resume();
        return send(res, await intake.rejectTooLarge(provider, req.headers, client));
      }
      const consumed = consumedBody(req);
      if (consumed === null) {
        // No bytes to verify: the intake answers (and journals) RAW_BODY_REQUIRED.
        const response = await intake.receive({
          endpoint: provider,
          rawBody: null as unknown as Uint8Array,
          headers: req.headers,
          client,
        });
        return send(res, response);
      }
      let rawBody = consumed;
      if (rawBody === undefined) {
        const read = await readLimited(Readable.toWeb(req) as ReadableStream<Uint8Array>, intake.maxBodyBytes);
        if (read.kind === 'aborted') return; // the sender is gone: nothing to answer
        if (read.kind === 'too-large') return send(res, await intake.rejectTooLarge(provider, req.headers, client));
        rawBody = read.bytes;
      }
      send(res, await intake.receive({ endpoint: provider, rawBody, headers: req.headers, client }));
    } catch (error) {
      next(error);
    }
  });
  return router;
}
