import { connect, createServer, type Socket } from 'node:net';
import { findFreePort } from '../demo/free-port.js';

/** A TCP proxy on 127.0.0.1 in front of a broker, whose connections the relay storm can cut. */
export interface TcpProxy {
  readonly port: number;
  /** Destroys every proxied connection and refuses new ones for `refuseMs` (a broker restart as clients see it). */
  cut(refuseMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy from a free port of 127.0.0.1 to `targetHost:targetPort`. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port }, resolve));
  return {
    port,
    async cut(refuseMs: number) {
      refusing = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await new Promise((resolve) => setTimeout(resolve, refuseMs));
      refusing = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
