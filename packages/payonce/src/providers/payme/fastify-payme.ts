import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { PAYME_ERROR_CODES, paymeError } from './payme-errors.js';
import type { PaymeMerchant, PaymeResponse } from './payme-merchant.js';

/** Options of {@link fastifyPayme}. */
export interface FastifyPaymeOptions {
  /** Route path of the Merchant API endpoint. @default '/payme' */
  readonly path?: string;
  /** Largest body read, in bytes; a larger one gets Fastify's 413. @default 65_536 */
  readonly maxBodyBytes?: number;
}

/**
 * Fastify 5 plugin with the Payme Merchant API endpoint at `path`: an encapsulated plugin whose only content parser
 * hands over the body as the exact bytes received, to `merchant.handle` with `request.ip` as the client; any other
 * HTTP method on the path is answered -32300 (HTTP 200, as Payme expects every answer).
 * @see fixtures payme/errors.json ("-32300": request method is not POST); STYLE pattern 8 (adapters translate).
 * @example await app.register(fastifyPayme(payme, { path: '/payme' }));
 */
export function fastifyPayme(merchant: PaymeMerchant, options: FastifyPaymeOptions = {}): FastifyPluginAsync {
  const path = options.path ?? '/payme';
  const bodyLimit = options.maxBodyBytes ?? 65_536;
  return async function payme(fastify) {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
    const send = (reply: FastifyReply, response: PaymeResponse) =>
      reply.code(response.status).headers(response.headers).send(response.body);
    fastify.post(path, async function paymeEndpoint(request, reply) {
      const rawBody = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
      return send(reply, await merchant.handle({ rawBody, headers: request.headers, client: request.ip }));
    });
    fastify.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH'],
      url: path,
      handler: async (_request, reply) => {
        const error = paymeError(PAYME_ERROR_CODES.notPost);
        const body = JSON.stringify({ jsonrpc: '2.0', id: null, error });
        return send(reply, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body });
      },
    });
  };
}
