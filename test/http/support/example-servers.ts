import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createExpressApp } from '../../../examples/express/server.js';
import { createFastifyApp } from '../../../examples/fastify/server.js';
import { createHonoApp } from '../../../examples/hono/server.js';
import type { ExampleAppOptions } from '../../../examples/shared/example-options.js';
import type { IdempotencyCore } from '../../../packages/payonce/src/http/idempotency-core.js';

/** The adapters the behaviour table runs against. A new one is a compile error until it has a starter. */
export type AdapterName = 'express' | 'fastify' | 'hono';

/** An example app listening on 127.0.0.1 on an ephemeral port. */
export interface RunningServer {
  readonly url: string;
  readonly idempotency: IdempotencyCore;
  close(): Promise<void>;
}

async function listening(server: Server, idempotency: IdempotencyCore): Promise<RunningServer> {
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    idempotency,
    close: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** Starts each framework's example app (imported, not mocked) on a real loopback socket. */
export const startExample: Record<AdapterName, (options: ExampleAppOptions) => Promise<RunningServer>> = {
  async express(options) {
    const { app, idempotency } = createExpressApp(options);
    return listening(app.listen(0, '127.0.0.1'), idempotency);
  },
  async fastify(options) {
    const { app, idempotency } = await createFastifyApp(options);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: address.replace('localhost', '127.0.0.1'), idempotency, close: () => app.close() };
  },
  async hono(options) {
    const { app, idempotency } = createHonoApp(options);
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    return listening(server, idempotency);
  },
};
