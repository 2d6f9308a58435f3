import type { IncomingHttpHeaders } from 'node:http';
import { isAllowedHost } from '../wire/control-guard.js';

/** `Sec-Fetch-Site` values a browser sends for a request its own page (or the user, typing the URL) made. */
const OWN_SITE = new Set(['same-origin', 'none']);

/**
 * Why the Telegram sandbox refuses a request that a web page made, or `null` to serve it. Bot API clients (grammY,
 * telegraf, payonce) send neither `Origin` nor `Sec-Fetch-Site`; a browser does, so a page of another site cannot
 * drive the sandbox through the user's browser (pay an invoice, refund, point the webhook elsewhere with a GET or a
 * `text/plain` POST that needs no CORS preflight):
 * - a `Host` that is not loopback or one of `allowed` (DNS rebinding: a page whose own name resolves to 127.0.0.1);
 * - an `Origin` whose host is not loopback or one of `allowed`;
 * - `Sec-Fetch-Site` other than `same-origin` or `none` (`cross-site`, `same-site`: another port of localhost);
 * - a `POST /sandbox/…` control whose body is not declared `application/json` (a preflighted type).
 * @see https://fetch.spec.whatwg.org/#cors-safelisted-request-header; https://w3c.github.io/webappsec-fetch-metadata/
 */
export function refusedBrowserRequest(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  allowed: readonly string[],
): string | null {
  const host = headers.host;
  if (host !== undefined && !isAllowedHost(host, allowed)) {
    return `Forbidden: Host "${host.slice(0, 80)}" is not allowed (the sandbox answers ${allowed.join(', ')})`;
  }
  const origin = headers.origin;
  if (origin !== undefined && !isAllowedHost(originHost(origin), allowed)) {
    return 'Forbidden: requests from web pages of other origins are refused';
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && !OWN_SITE.has(site)) return 'Forbidden: cross-site requests are refused';
  const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (method === 'POST' && path.startsWith('/sandbox/') && type !== 'application/json') {
    return 'Unsupported Media Type: sandbox controls take Content-Type: application/json';
  }
  return null;
}

/** The `host[:port]` of an `Origin` header (`null` and other opaque origins: an empty string, never allowed). */
function originHost(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return '';
  }
}
