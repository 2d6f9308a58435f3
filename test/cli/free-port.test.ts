import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { findFreePort } from '../../packages/cli/src/demo/free-port.js';

/**
 * The demo's and the storm's child processes listen on a port chosen beforehand. A port the OS picked for port 0 is
 * one it also gives the next outgoing connection of any process, which took it from a service still waiting for its
 * database (CI: `listen EADDRINUSE`). The port is chosen below the ephemeral range instead.
 */
it('finds a free port below the ephemeral range, one a child can listen on', async () => {
  const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 5 }, () => findFreePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(start);
  }
  const [port] = ports as [number];
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => resolve());
  });
  await new Promise((resolve) => server.close(resolve));
});
