import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { clientGoneSignal } from '../http/client-gone.js';
import type { HttpResponse } from '../http/http-exchange.js';
import type { WebhookIntake } from './intake.js';
import { bodyBuffer } from './webhook-body.js';

/** Options of {@link fastifyWebhooks}. */
export interface FastifyWebhooksOptions {
  /** Route path; must contain the `:provider` parameter. @default '/webhooks/:provider' */
  readonly path?: string;
}

function send(reply: FastifyReply, response: HttpResponse): FastifyReply {
  reply.code(response.status).headers(response.headers);
  return reply.send(bodyBuffer(response));
}

/**
 * Fastify 5 route `POST /webhooks/:provider` for a webhook intake: an encapsulated plugin whose only content
 * parser hands over the body as the exact bytes received (any content type, `parseAs: 'buffer'`, limit
 * `intake.maxBodyBytes`), so the intake verifies what the provider signed. A body over the limit is answered by
 * `intake.rejectTooLarge` (413, journaled) before anything else runs; an unknown provider is a 404.
 * @see docs/design.md §5; STYLE pattern 8 (adapters translate, nothing else).
 * @example await app.register(fastifyWebhooks(intake));
 */
export function fastifyWebhooks(intake: WebhookIntake, options: FastifyWebhooksOptions = {}): FastifyPluginAsync {
  const path = options.path ?? '/webhooks/:provider';
  return async function webhooks(fastify) {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: intake.maxBodyBytes }, (_request, body, done) =>
      done(null, body),
    );
    fastify.setErrorHandler((error: FastifyError, request, reply) => {
      const provider = (request.params as { provider?: string } | undefined)?.provider;
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && provider !== undefined && intake.has(provider)) {
        return intake.rejectTooLarge(provider, request.headers, request.ip).then((response) => send(reply, response));
      }
      return reply.send(error);
    });
    fastify.post<{ Params: { provider: string } }>(path, async function webhookDelivery(request, reply) {
      const { provider } = request.params;
      if (!intake.has(provider)) return reply.callNotFound();
      const body = request.body;
      const rawBody = body instanceof Uint8Array ? body : new Uint8Array(0);
      // Stops a wait for an in-flight duplicate (the intake's waitForInFlightMs) when the sender disconnects; made
      // only when the intake may wait (an AbortController per delivery is not free).
      const signal = intake.waitsForInFlight ? clientGoneSignal(reply.raw) : undefined;
      const delivery = { endpoint: provider, rawBody, headers: request.headers, signal, client: request.ip };
      return send(reply, await intake.receive(delivery));
    });
  };
}
