import Fastify, { type FastifyInstance } from 'fastify';
import { databaseReachable } from './database-reachable.js';
import { edgeServerOptions, installProblemHandlers, SERVICE_BODY_LIMIT_BYTES } from './http-edge.js';
import type { ServiceContext } from './service-context.js';

/**
 * The fastify app every service process listens with (`payonce serve`, `payonce console`): the service's body limit
 * (`SERVICE_BODY_LIMIT_BYTES`), its edge options (malformed HTTP answered problem+json), the trusted proxies of
 * `ctx.config.trustProxy` (their `X-Forwarded-Proto`/`-For` are believed: the console cookie's `Secure`, the admin
 * throttle's client), and the problem handlers: 404 `ROUTE_NOT_FOUND`, and any route error as problem+json, 503
 * `STORE_UNAVAILABLE` with `Retry-After` while the database does not answer. Throws nothing of its own.
 * @see docs/service.md.
 */
export function serviceApp(ctx: ServiceContext): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: SERVICE_BODY_LIMIT_BYTES,
    ...edgeServerOptions(ctx.logger),
    ...(ctx.config.trustProxy ? { trustProxy: [...ctx.config.trustProxy] } : {}),
  });
  installProblemHandlers(app, ctx.logger, () => databaseReachable(ctx));
  return app;
}
