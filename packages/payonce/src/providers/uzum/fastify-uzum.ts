import type { FastifyPluginAsync } from 'fastify';
import type { UzumMerchant } from './uzum-merchant.js';

/** Options of {@link fastifyUzum}. */
export interface FastifyUzumOptions {
  /** Path prefix of the five webhooks (`<prefix>/check`, …). @default '/uzum' */
  readonly prefix?: string;
  /** Largest body read, in bytes; a larger one gets Fastify's 413. @default 65_536 */
  readonly maxBodyBytes?: number;
}

/**
 * Fastify 5 plugin with the five Uzum Merchant API webhooks at `<prefix>/:operation`: an encapsulated plugin whose
 * only content parser hands over the body as the exact bytes received, to `merchant.handle` with the path (an
 * unknown operation is answered 10003 by the engine).
 * @see fixtures uzum/protocol.json "transport"; STYLE pattern 8 (adapters translate).
 * @example await app.register(fastifyUzum(uzum, { prefix: '/uzum' }));
 */
export function fastifyUzum(merchant: UzumMerchant, options: FastifyUzumOptions = {}): FastifyPluginAsync {
  const prefix = (options.prefix ?? '/uzum').replace(/\/+$/, '');
  const bodyLimit = options.maxBodyBytes ?? 65_536;
  return async function uzum(fastify) {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
    fastify.post(`${prefix}/:operation`, async function uzumEndpoint(request, reply) {
      const rawBody = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
      const response = await merchant.handle({ path: request.url, rawBody, headers: request.headers });
      return reply.code(response.status).headers(response.headers).send(response.body);
    });
  };
}
