import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { CLICK_ANSWERS } from './click-answers.js';
import { type ClickMerchant, type ClickResponse, clickResponse } from './click-merchant.js';

/** Options of {@link fastifyClick}. */
export interface FastifyClickOptions {
  /** Route paths Click calls (the Prepare URL and the Complete URL may be one). @default ['/click/prepare', '/click/complete'] */
  readonly paths?: readonly string[];
  /** Largest body read, in bytes; a larger one gets Fastify's 413. @default 16_384 */
  readonly maxBodyBytes?: number;
}

/**
 * Fastify 5 plugin with Click's SHOP API endpoint at each of `paths`: an encapsulated plugin whose only content
 * parser hands over the body as the exact bytes received (the form the signature covers) to `merchant.handle`; any
 * other HTTP method on the paths is answered -8 (HTTP 200, JSON).
 * @see https://docs.click.uz/en/click-api-request/; STYLE pattern 8 (adapters translate).
 * @example await app.register(fastifyClick(click, { paths: ['/click/prepare', '/click/complete'] }));
 */
export function fastifyClick(merchant: ClickMerchant, options: FastifyClickOptions = {}): FastifyPluginAsync {
  const paths = options.paths ?? ['/click/prepare', '/click/complete'];
  const bodyLimit = options.maxBodyBytes ?? 16_384;
  return async function click(fastify) {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
    const send = (reply: FastifyReply, response: ClickResponse) =>
      reply.code(response.status).headers(response.headers).send(response.body);
    for (const path of paths) {
      fastify.post(path, async function clickEndpoint(request, reply) {
        const rawBody = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
        return send(reply, await merchant.handle({ rawBody }));
      });
      fastify.route({
        method: ['GET', 'PUT', 'DELETE', 'PATCH'],
        url: path,
        handler: async (_request, reply) => {
          const echo = { action: null, clickTransId: null, merchantTransId: null };
          return send(reply, clickResponse(echo, { answer: CLICK_ANSWERS.badRequest, transaction: null }));
        },
      });
    }
  };
}
