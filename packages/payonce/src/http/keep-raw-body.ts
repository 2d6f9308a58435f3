import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The `verify` hook of express's body parsers that keeps the exact bytes each one read:
 * `app.use(express.json({ verify: keepRawBody }))` (also `express.text`, `express.urlencoded`). It sets
 * `req.rawBody` to the parser's `Buffer`; `expressIdempotencyKey` fingerprints those bytes and `expressWebhooks`
 * verifies signatures on them, so a global JSON parser no longer breaks either (without it: 500 `INVALID_OPTION` /
 * `RAW_BODY_REQUIRED`). Typed as body-parser's `verify` (`@types/body-parser`, which `@types/express` 5 uses), under
 * which an inline `(req, _res, buf) => { req.rawBody = buf }` does not compile (TS2339: `IncomingMessage` has no
 * `rawBody`). Never throws.
 * @param buf the body as received, before any decoding (body-parser's `verify(req, res, buf, encoding)`).
 * @see docs/http.md "Adapters"; docs/webhook-handlers.md "express (PostgreSQL)".
 * @example app.use(express.json({ verify: keepRawBody }));
 */
export function keepRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buf;
}
