import type { Verdict } from '../acceptance/check-runner.js';
import type { PaymeExchange } from './payme-rpc.js';

/** A short description of an answer: `error -31008`, `result {…}`, or the HTTP failure. */
export function describe(exchange: PaymeExchange): string {
  if (exchange.status === null) return exchange.received;
  if (exchange.status !== 200) return `HTTP ${exchange.status} (Payme expects 200 with a JSON-RPC body)`;
  const answer = exchange.answer;
  if (answer === null) return `not a JSON object: ${exchange.received.slice(0, 80)}`;
  if (answer.error !== undefined && answer.error !== null) {
    const data = answer.error.data === undefined ? '' : ` (data ${JSON.stringify(answer.error.data)})`;
    return `error ${answer.error.code}${data}`;
  }
  return `result ${JSON.stringify(answer.result)}`;
}

/** A verdict: an error with a code `accept` takes. */
export function expectError(exchange: PaymeExchange, accept: (code: number) => boolean): Verdict {
  const code = exchange.status === 200 ? exchange.answer?.error?.code : undefined;
  return { passed: typeof code === 'number' && accept(code), got: describe(exchange) };
}

/** A verdict: a result whose fields pass every named test; `got` names the first that does not. */
export function expectResult(
  exchange: PaymeExchange,
  tests: Readonly<Record<string, (value: unknown) => boolean>>,
): Verdict {
  const result = exchange.status === 200 ? exchange.answer?.result : undefined;
  if (result === undefined || result === null) return { passed: false, got: describe(exchange) };
  for (const [field, test] of Object.entries(tests)) {
    if (!test(result[field]))
      return { passed: false, got: `${field}: ${JSON.stringify(result[field])} in ${describe(exchange)}` };
  }
  return { passed: true, got: describe(exchange) };
}
