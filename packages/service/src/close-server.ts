import type { FastifyInstance } from 'fastify';

/** How often a closing service closes the connections that became idle since (ms). */
const IDLE_SWEEP_MS = 100;

/**
 * Closes the HTTP server gracefully: no new connection; requests in flight finish and are answered (fastify answers
 * requests that arrive meanwhile 503 with `Connection: close`). A keep-alive connection whose request was in flight
 * when the close began goes idle afterwards, and Node closes idle connections only once, at the start: such a
 * connection would hold the close open for the keep-alive timeout (72 s in fastify), e.g. a provider's webhook
 * delivery or a retry landing just then. So idle connections are closed as they appear until the server is closed.
 */
export async function closeServer(app: FastifyInstance): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}
