import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';

/** Resolves true when a TCP connection to `host`:`port` is accepted within `timeoutMs`, false otherwise. */
function accepts(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * True when something already accepts TCP connections on `url`'s port, at any address its host resolves to (both
 * `127.0.0.1` and `::1` for `localhost`): `payonce storm --start CMD --url URL` then refuses to start, since the
 * storm would test whatever answers there. A host that does not resolve, or a connection that is refused or
 * not accepted within `timeoutMs`, counts as free.
 */
export async function portAnswers(url: URL, timeoutMs = 1_000): Promise<boolean> {
  const port = Number(url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = await lookup(host, { all: true }).catch(() => []);
  const answers = await Promise.all(addresses.map(({ address }) => accepts(address, port, timeoutMs)));
  return answers.includes(true);
}
