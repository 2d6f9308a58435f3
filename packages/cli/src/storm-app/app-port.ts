import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { findFreePort } from '../demo/free-port.js';

/**
 * Where the app's port is drawn from: below every OS's ephemeral range (Linux 32768–60999, macOS and Windows
 * 49152–65535), where the OS never hands out a port for `listen(0)` or an outgoing connection.
 */
const FIRST = 20_000;
const LAST = 29_999;

/** Resolves true when `port` on `host` could be listened on (and was released again). */
function free(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A free port for the app `payonce storm --start` starts (given as `PORT`): a random one from 20000–29999 that was
 * free a moment ago. The port is released before the app binds it, and an app may take seconds to boot: a port
 * from the OS's ephemeral range (`listen(0)`) could meanwhile be taken by any process that asks for one (another
 * test's server), whose answers the storm would then judge; outside that range only a process that chose the same
 * number could. Falls back to the OS's choice after 20 taken draws.
 * @throws the listener's error when even the OS's choice fails.
 */
export async function appPort(host = '127.0.0.1'): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = randomInt(FIRST, LAST + 1);
    if (await free(port, host)) return port;
  }
  return findFreePort(host);
}
