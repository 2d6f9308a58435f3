/** The part of an exchange the transport diagnoses read. */
export interface TransportAnswer {
  readonly status: number | null;
  readonly received: string;
  readonly failure?: string;
}

/**
 * Why no later call can reach the endpoint, or null: the connection failed (`cannot connect to URL: ECONNREFUSED`,
 * the error's code) or the path answers HTTP 404. Unlike a timeout or an error page, neither is the answer to one
 * particular call, so a battery that meets either stops there.
 */
export function lostEndpoint(exchange: TransportAnswer, url: string): string | null {
  if (exchange.status === null && exchange.failure !== 'timeout') {
    return `cannot connect to ${url}: ${exchange.failure ?? exchange.received}`;
  }
  if (exchange.status === 404) return `HTTP 404 at ${url} (not the endpoint's path?)`;
  return null;
}

/**
 * Why no check can mean anything when `exchange` is what `url` answered to the battery's first call, or null:
 * {@link lostEndpoint}, no answer in time, or an HTML page instead of the JSON every provider protocol answers with
 * (a web framework's error or sign-in page). One line, so a battery stops with it instead of failing every check
 * for the same reason.
 */
export function transportProblem(exchange: TransportAnswer, url: string): string | null {
  const lost = lostEndpoint(exchange, url);
  if (lost !== null) return lost;
  if (exchange.status === null) return `no answer from ${url}: ${exchange.received}`;
  if (/^\s*</.test(exchange.received)) return `HTML answer, not JSON, from ${url} (HTTP ${exchange.status})`;
  return null;
}
