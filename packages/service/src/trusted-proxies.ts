import { isIP } from 'node:net';
import { InvalidOption } from 'payonce/internal/core/errors.js';

/** The named address ranges `proxy-addr` (fastify's `trustProxy`) knows. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** True when `entry` is an IPv4/IPv6 address, optionally with a `/prefix` (CIDR) or an IPv4 netmask. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (family === 4 && isIP(prefix) === 4) return true;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  return bits >= 0 && bits <= (family === 4 ? 32 : 128);
}

/**
 * The proxies whose `X-Forwarded-For` / `X-Forwarded-Proto` / `X-Forwarded-Host` the service believes, checked:
 * a comma-separated list (or an array) of addresses, CIDR ranges (`10.0.0.0/8`) and the names `loopback`,
 * `linklocal`, `uniquelocal`. Empty or absent → `null` (no proxy is trusted: the socket's address and protocol
 * count). "Trust everything" is not offered: any client could then claim to be HTTPS or another address.
 * @throws {InvalidOption} `trustProxy` with an entry that is none of these.
 * @see fastify `trustProxy` (proxy-addr); RFC 7239 §8.3 (forwarded headers are only as good as the proxy).
 */
export function trustedProxiesOf(value: string | readonly string[] | null | undefined): readonly string[] | null {
  if (value === null || value === undefined) return null;
  const entries = (typeof value === 'string' ? value.split(',') : [...value]).map((e) => String(e).trim());
  const list = entries.filter((e) => e !== '');
  for (const entry of list) {
    if (!NAMED_RANGES.has(entry) && !isAddressOrRange(entry)) {
      throw new InvalidOption(
        'trustProxy',
        `"${entry.slice(0, 60)}" is not an address, a CIDR range or loopback/linklocal/uniquelocal`,
      );
    }
  }
  return list.length > 0 ? Object.freeze(list) : null;
}
