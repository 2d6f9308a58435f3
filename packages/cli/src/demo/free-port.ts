import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Tries at a random port below the ephemeral range before letting the OS pick one. */
const RANDOM_TRIES = 20;
/** Lowest port tried: above the well-known and most registered ones. */
const LOWEST = 10_000;

/**
 * The first port of the OS's ephemeral range (Linux `ip_local_port_range`; 32 768 where it cannot be read): the
 * ports it hands to outgoing connections and to listeners on port 0.
 */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > LOWEST + 1_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

/** Listens on `port` (0: the OS picks) and closes at once; the port that was bound, or `null` when it was taken. */
function tryPort(host: string, port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' && port !== 0 ? resolve(null) : reject(error),
    );
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (bound > 0 ? resolve(bound) : reject(new Error(`no port assigned on ${host}`))));
    });
  });
}

/**
 * A TCP port on `host` that was free a moment ago, for a child process to listen on. It is chosen at random BELOW
 * the OS's ephemeral range: a port the OS picked (port 0) is one it also hands to the next outgoing connection of any
 * process, which can take it before a slow child listens (a service still waiting for its database). Another process
 * could still take it in between; the caller notices that when its own listen fails. After 20 ports in use, the OS
 * picks one.
 * @throws the listener's error (e.g. `EADDRNOTAVAIL` for a host that is not local).
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  const below = ephemeralStart();
  for (let i = 0; i < RANDOM_TRIES; i++) {
    const free = await tryPort(host, LOWEST + Math.floor(Math.random() * (below - LOWEST)));
    if (free !== null) return free;
  }
  return (await tryPort(host, 0)) as number;
}
