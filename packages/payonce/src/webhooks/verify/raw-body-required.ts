import { WebhookError } from './webhook-error.js';

/**
 * Signature verification was handed something other than the exact request bytes: a string, a parsed JSON
 * object, an `ArrayBuffer`, `undefined`… Signatures cover the bytes as sent, so a decoded or re-serialised body
 * can only give wrong answers; this is a configuration error of the caller (read the body with
 * `express.raw()`, fastify's `parseAs: 'buffer'`, `await c.req.arrayBuffer()`), never a silent "invalid".
 * Code `RAW_BODY_REQUIRED`.
 * @see Stripe "Are you passing the raw request body you received from Stripe?"; Standard Webhooks spec,
 * "Signature scheme" (re-serialising JSON breaks verification).
 */
export class RawBodyRequired extends WebhookError {
  /** What was passed instead, e.g. `string`, `object (Object)`, `ArrayBuffer`. */
  readonly received: string;
  constructor(received: string) {
    super(
      'RAW_BODY_REQUIRED',
      `rawBody must be the request bytes as received (Uint8Array or Buffer), got ${received}; ` +
        'a string or parsed object may differ from what the provider signed',
    );
    this.received = received;
  }
}
