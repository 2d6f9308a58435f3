import Fastify, { type FastifyInstance } from 'fastify';
import { databaseReachable } from './database-reachable.js';
import { edgeServerOptions, installProblemHandlers, SERVICE_BODY_LIMIT_BYTES } from './http-edge.js';
import type { ServiceContext } from './service-context.js';

/**
 * The fastify app every service process listens with (`payonce serve`, `payonce console`): the service's body limit
 * (`SERVICE_BODY_LIMIT_BYTES`), a whole request within `ctx.config.requestTimeoutMs` (else 408 and the socket
 * closed), its edge options (malformed HTTP answered problem+json), the trusted proxies of
 * `ctx.config.trustProxy` (their `X-Forwarded-Proto`/`-For` are believed: the console cookie's `Secure`, the admin
 * throttle's client), and the problem handlers: 404 `ROUTE_NOT_FOUND`, and any route error as problem+json, 503
 * `STORE_UNAVAILABLE` with `Retry-After` while the database does not answer. Throws nothing of its own.
 * @see docs/service.md.
 */
export function serviceApp(ctx: ServiceContext): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: SERVICE_BODY_LIMIT_BYTES,
    // A whole request within this time, else 408 and the socket closed (Node checks every `connectionsCheckingInterval`).
    requestTimeout: ctx.config.requestTimeoutMs,
    http: { connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(ctx.config.requestTimeoutMs / 2))) },
    ...edgeServerOptions(ctx.logger),
    ...(ctx.config.trustProxy ? { trustProxy: [...ctx.config.trustProxy] } : {}),
  });
  installProblemHandlers(app, ctx.logger, () => databaseReachable(ctx));
  closeStalledBodies(app, ctx.config.requestTimeoutMs);
  return app;
}

/**
 * Node's `requestTimeout` ends a request whose HEADERS stall; once they arrived, a body that never finishes would
 * hold the connection for ever (slow-loris on the webhook URLs). Each request whose body is still arriving gets
 * `timeoutMs` from its start to finish it; after that its socket is destroyed (nothing was answered: the sender
 * never completed its request, so no receipt exists for it).
 */
function closeStalledBodies(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('onRequest', async (request) => {
    const raw = request.raw;
    if (raw.complete) return;
    const timer = setTimeout(() => {
      if (!raw.complete) raw.socket?.destroy();
    }, timeoutMs);
    timer.unref();
    raw.once('close', () => clearTimeout(timer));
  });
}
