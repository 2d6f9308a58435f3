import { Controller, Inject, NotFoundException, Post, Req, Res, type Type } from '@nestjs/common';
import { InvalidOption } from '../core/errors.js';
import { clientGoneSignal } from '../http/client-gone.js';
import type { HttpResponse } from '../http/http-exchange.js';
import type { WebhookIntake } from '../webhooks/intake.js';
import { bodyBuffer, declaresTooLarge } from '../webhooks/webhook-body.js';
import { type NestHttpRequest, serverResponseOf } from './nest-http.js';
import { PAYONCE_WEBHOOK_INTAKE } from './payonce-tokens.js';

/** Options of `payonceWebhookController`. */
export interface PayonceWebhookControllerOptions {
  /** The controller's path; the route is `POST <path>/:provider`. @default 'webhooks' */
  readonly path?: string;
}

/** The part of either platform's response the controller answers through (express `Response`, `FastifyReply`). */
interface PlatformReply {
  status?(code: number): unknown; // express
  code?(code: number): unknown; // fastify
  setHeader?(name: string, value: string): unknown; // express
  header?(name: string, value: string): unknown; // fastify
  send(body: Buffer): unknown;
}

/** Sends the intake's response byte for byte, on express or fastify. */
function send(reply: PlatformReply, { status, headers, body }: HttpResponse): void {
  if (typeof reply.code === 'function') reply.code(status);
  else reply.status?.(status);
  for (const [name, value] of Object.entries(headers)) {
    if (typeof reply.header === 'function') reply.header(name, value);
    else reply.setHeader?.(name, value);
  }
  reply.send(bodyBuffer({ status, headers, body }));
}

/**
 * A controller class serving the webhook intake of `PayonceModule` (its `webhooks` option, `PAYONCE_WEBHOOK_INTAKE`)
 * at `POST /webhooks/:provider`: list it in your module's `controllers`. It answers as `expressWebhooks` /
 * `fastifyWebhooks` do: the intake verifies the exact bytes received (Nest keeps them with `rawBody: true`, on
 * express and fastify), a declared body over `maxBodyBytes` is refused 413 (journaled) before anything else, an
 * unknown provider is Nest's 404 (`NotFoundException`), and every answer (acknowledgement, replay, problem+json) is the intake's response,
 * sent byte for byte. A body Nest parsed without keeping its bytes (app created without `rawBody: true`) is answered
 * 500 `RAW_BODY_REQUIRED` (journaled), never verified on re-serialised JSON. Nest's body parser applies its own size
 * limit first (express: 100 kB for JSON unless `app.useBodyParser('json', { limit })`).
 * @throws {InvalidOption} (when the application boots) `PayonceModule` has no `webhooks` option.
 * @see `createWebhookIntake`; docs/design.md §5; NestJS docs "Raw body".
 * @example @Module({ imports: [PayonceModule.forRootAsync({ … })], controllers: [payonceWebhookController()] })
 */
export function payonceWebhookController(options: PayonceWebhookControllerOptions = {}): Type<unknown> {
  const path = options.path ?? 'webhooks';
  class PayonceWebhooks {
    private readonly intake: WebhookIntake;

    constructor(intake: WebhookIntake | null) {
      if (intake === null) {
        throw new InvalidOption(
          'webhooks',
          'payonceWebhookController() serves the webhooks option of PayonceModule; set it',
        );
      }
      this.intake = intake;
    }

    async receive(
      request: NestHttpRequest & { readonly params: { readonly provider?: string } },
      reply: PlatformReply,
    ): Promise<void> {
      const intake = this.intake;
      const provider = String(request.params.provider);
      if (!intake.has(provider)) throw new NotFoundException(`Cannot ${request.method} ${request.url}`); // Nest's own 404
      const client = request.ip;
      if (declaresTooLarge(request.headers['content-length'], intake.maxBodyBytes)) {
        return send(reply, await intake.rejectTooLarge(provider, request.headers, client));
      }
      // No kept bytes: the intake answers (and journals) RAW_BODY_REQUIRED rather than verify re-serialised JSON.
      const rawBody = Buffer.isBuffer(request.rawBody) ? request.rawBody : (null as unknown as Uint8Array);
      const signal = intake.waitsForInFlight ? clientGoneSignal(serverResponseOf(reply)) : undefined;
      send(reply, await intake.receive({ endpoint: provider, rawBody, headers: request.headers, signal, client }));
    }
  }
  const receive = Object.getOwnPropertyDescriptor(PayonceWebhooks.prototype, 'receive') as PropertyDescriptor;
  Req()(PayonceWebhooks.prototype, 'receive', 0);
  Res()(PayonceWebhooks.prototype, 'receive', 1);
  Post(':provider')(PayonceWebhooks.prototype, 'receive', receive);
  Inject(PAYONCE_WEBHOOK_INTAKE)(PayonceWebhooks, undefined, 0);
  Controller(path)(PayonceWebhooks);
  return PayonceWebhooks;
}
