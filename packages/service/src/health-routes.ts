import type { FastifyInstance } from 'fastify';
import { storeUnavailableProblem } from './http-edge.js';
import type { ServiceContext } from './service-context.js';
import type { ServiceRuntime } from './service-runtime.js';
import { withinMs } from './within-ms.js';

/** Paths answered while the database is not ready yet: the probes. */
export const ALWAYS_OPEN: ReadonlySet<string> = new Set(['/healthz', '/metrics']);

/**
 * Runs every store check at once, each bounded by `timeoutMs`: `ok`, or `unavailable` when it failed or did not
 * answer in time.
 */
async function checkStores(
  checks: Readonly<Record<string, () => Promise<unknown>>>,
  timeoutMs: number,
): Promise<Record<string, 'ok' | 'unavailable'>> {
  const names = Object.keys(checks);
  const states = await Promise.all(
    names.map(async (name) => {
      try {
        await withinMs(checks[name]!(), timeoutMs, 'store check');
        return 'ok' as const;
      } catch {
        return 'unavailable' as const;
      }
    }),
  );
  return Object.fromEntries(names.map((name, i) => [name, states[i]!]));
}

/**
 * `GET /healthz` (200 `ok` when the service is ready and every store answered within `storeTimeoutMs`, else 503
 * `unavailable` or `starting` with `Retry-After`) and `GET /metrics` (Prometheus text). `startedAtMs`: epoch ms.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  runtime: ServiceRuntime,
  startedAtMs: number,
): void {
  app.get('/healthz', async (_request, reply) => {
    const stores = await checkStores(runtime.storeChecks, ctx.config.storeTimeoutMs);
    const ready = runtime.readiness.ready;
    const healthy = ready && Object.values(stores).every((state) => state === 'ok');
    if (!healthy) reply.header('retry-after', storeUnavailableProblem().headers['retry-after']);
    const health = {
      status: healthy ? 'ok' : ready ? 'unavailable' : 'starting',
      pid: process.pid,
      startedAtMs,
      database: ctx.store.name,
      receipts: runtime.receipts,
      stores,
    };
    return reply.code(healthy ? 200 : 503).send(health);
  });
  app.get('/metrics', async (_request, reply) =>
    reply.header('content-type', runtime.metrics.contentType).send(await runtime.metrics.metrics()),
  );
}
