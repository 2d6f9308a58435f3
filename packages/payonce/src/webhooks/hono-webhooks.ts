import { Hono } from 'hono';
import type { HttpResponse } from '../http/http-exchange.js';
import type { WebhookIntake } from './intake.js';
import { declaresTooLarge, readLimited } from './webhook-body.js';

/** Options of {@link honoWebhooks}. */
export interface HonoWebhooksOptions {
  /** Route path; must contain the `:provider` parameter. @default '/webhooks/:provider' */
  readonly path?: string;
}

function toResponse({ status, headers, body }: HttpResponse): Response {
  return new Response(status === 204 || status === 304 ? null : new Uint8Array(body), { status, headers });
}

/**
 * Hono 4 app with `POST /webhooks/:provider` for a webhook intake, equal to `fastifyWebhooks`: the body is read
 * from the request stream as the exact bytes received (any content type, none needed), up to
 * `intake.maxBodyBytes` — a declared or actual body over the limit is answered by `intake.rejectTooLarge` (413
 * problem+json, journaled) and the stream is cancelled; an unknown provider falls through to the app's 404. Every
 * answer is the intake's response, byte for byte. Runs on any runtime with web streams (Node via
 * `@hono/node-server`, Bun, Deno, workers).
 * @see docs/design.md §5 "Order of work"; `fastifyWebhooks`; STYLE pattern 8 (adapters translate, nothing else).
 * @example app.route('/', honoWebhooks(intake));
 */
export function honoWebhooks(intake: WebhookIntake, options: HonoWebhooksOptions = {}): Hono {
  const path = options.path ?? '/webhooks/:provider';
  const app = new Hono();
  app.post(path, async (c, next) => {
    const provider = c.req.param('provider') ?? '';
    if (!intake.has(provider)) return next();
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (declaresTooLarge(c.req.header('content-length'), intake.maxBodyBytes)) {
      return toResponse(await intake.rejectTooLarge(provider, headers));
    }
    // A middleware that read the body through `c.req` left Hono's cached copy (same bytes); else read the stream.
    const read = c.req.raw.bodyUsed
      ? { kind: 'body' as const, bytes: new Uint8Array(await c.req.arrayBuffer()) }
      : await readLimited(c.req.raw.body, intake.maxBodyBytes);
    if (read.kind === 'body' && read.bytes.byteLength > intake.maxBodyBytes) {
      return toResponse(await intake.rejectTooLarge(provider, headers));
    }
    if (read.kind === 'too-large') return toResponse(await intake.rejectTooLarge(provider, headers));
    if (read.kind === 'aborted') return new Response(null, { status: 400 });
    return toResponse(await intake.receive({ endpoint: provider, rawBody: read.bytes, headers }));
  });
  return app;
}
