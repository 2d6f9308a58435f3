import { createServer } from 'node:net';

/**
 * A TCP port on `host` that was free a moment ago: the OS picks it for a throw-away listener, which is closed
 * before returning. Another process could take it in between; the caller notices that when its own listen fails.
 * @throws the listener's error (e.g. `EADDRNOTAVAIL` for a host that is not local).
 */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error(`no port assigned on ${host}`))));
    });
  });
}
