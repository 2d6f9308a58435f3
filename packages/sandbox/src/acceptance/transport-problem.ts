/** The part of an exchange the transport diagnoses read. */
export interface TransportAnswer {
  readonly status: number | null;
  readonly received: string;
  readonly failure?: string;
}

/**
 * Why no check can mean anything when `exchange` is what `url` answered, or null: no answer at all (`cannot connect
 * to URL: ECONNREFUSED`, or the timeout), HTTP 404 (the path is not the endpoint's), or an HTML page instead of the
 * JSON every provider protocol answers with (a web framework's error or login page). One line, so a battery stops
 * with it instead of failing every check for the same reason.
 */
export function transportProblem(exchange: TransportAnswer, url: string): string | null {
  if (exchange.status === null) {
    return exchange.failure === 'timeout'
      ? `no answer from ${url}: ${exchange.received}`
      : `cannot connect to ${url}: ${exchange.failure ?? exchange.received}`;
  }
  if (exchange.status === 404) return `HTTP 404 at ${url} (not the endpoint's path?)`;
  if (/^\s*</.test(exchange.received)) return `HTML answer, not JSON, from ${url} (HTTP ${exchange.status})`;
  return null;
}
