import { InvalidOption } from 'payonce/internal/core/errors.js';
import { StripeApiError } from './stripe-api-error.js';

/** Host names the sandbox always answers: it listens on 127.0.0.1 only. */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['127.0.0.1', 'localhost', '::1']);

/**
 * Checks `allowedHosts` (extra names the sandbox answers besides loopback, e.g. a container's name): bare host names
 * or IP literals, without port or scheme. @throws {InvalidOption} anything else.
 */
export function checkAllowedHosts(hosts: readonly string[] | undefined): readonly string[] {
  const checked = (hosts ?? []).map((host) => host.trim().toLowerCase());
  for (const host of checked) {
    if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(host)) {
      throw new InvalidOption('allowedHosts', `"${host.slice(0, 60)}" is not a host name (no port, no scheme)`);
    }
  }
  return Object.freeze([...LOOPBACK_HOSTS, ...checked]);
}

/** The host name of a `Host` header value (`name`, `name:port`, `[v6]:port`), lower case; `null` when malformed. */
function hostNameOf(header: string): string | null {
  const value = header.trim().toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (v6 !== null) return v6[1] ?? null;
  const named = /^([^:[\]]+)(?::\d{1,5})?$/.exec(value);
  return named === null ? null : (named[1] ?? null);
}

/** True when `header` (a `Host` or an origin's `host[:port]`) names a loopback host or one of `allowed`. */
export function isAllowedHost(header: string, allowed: readonly string[]): boolean {
  const name = hostNameOf(header);
  return name !== null && allowed.includes(name);
}

/**
 * Refuses a request whose `Host` is not a loopback name or one of `allowed` (DNS rebinding: a web page whose own
 * name resolves to 127.0.0.1 would otherwise reach the sandbox as same-origin and read its answers). A request
 * without `Host` (HTTP/1.0 tools) passes.
 * @throws {StripeApiError} 403 `host_not_allowed`.
 * @see https://en.wikipedia.org/wiki/DNS_rebinding; webpack-dev-server `allowedHosts`, Vite `server.allowedHosts`.
 */
export function checkHost(header: string | undefined, allowed: readonly string[]): void {
  if (header === undefined || isAllowedHost(header, allowed)) return;
  throw new StripeApiError(
    403,
    'invalid_request_error',
    `Host "${header.slice(0, 80)}" is not allowed: the sandbox answers ${allowed.join(', ')} (add a name with --allowed-host or allowedHosts).`,
    { code: 'host_not_allowed' },
  );
}

/**
 * Refuses a `POST /_sandbox/…` control whose body is not declared `application/json`: a web page can send a
 * cross-site `text/plain` or form POST without a CORS preflight, never an `application/json` one, so this keeps
 * other sites from settling, refunding, faulting or re-signing through the user's browser.
 * @throws {StripeApiError} 415 `unsupported_media_type`.
 * @see https://fetch.spec.whatwg.org/#cors-safelisted-request-header (the content types sent without preflight).
 */
export function checkControlContentType(method: string, contentType: string | undefined): void {
  if (method !== 'POST') return;
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'application/json') return;
  throw new StripeApiError(
    415,
    'invalid_request_error',
    `Sandbox controls take Content-Type: application/json, not "${(contentType ?? '').slice(0, 60)}".`,
    { code: 'unsupported_media_type' },
  );
}
