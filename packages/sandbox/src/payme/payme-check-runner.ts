import type { PaymeCheckResult } from './payme-acceptance-report.js';
import { callPayme, type PaymeCallSpec, type PaymeExchange, type PaymeTarget } from './payme-rpc.js';

/** A check's verdict: passed, and what came back in words. */
export interface Verdict {
  readonly passed: boolean;
  readonly got: string;
  /** Set when no later check can mean anything (an order that is not payable): the battery stops, `got` says why. */
  readonly halt?: boolean;
}

/** What a check declares before it runs. */
export interface CheckSpec {
  readonly name: string;
  readonly expected: string;
  readonly why: string;
}

/** Runs checks one after another, each with its own record of calls, into a list of results. */
export class CheckRunner {
  readonly results: PaymeCheckResult[] = [];
  /** Why the battery must stop (the `got` of a halting verdict), or null. */
  stopped: string | null = null;

  constructor(private readonly target: PaymeTarget) {}

  /** Runs `body` with a `call` that records every exchange; an exception fails the check with its message. */
  async check(spec: CheckSpec, body: (call: (s: PaymeCallSpec) => Promise<PaymeExchange>) => Promise<Verdict>) {
    const exchanges: PaymeExchange[] = [];
    const call = async (s: PaymeCallSpec) => {
      const exchange = await callPayme(this.target, s);
      exchanges.push(exchange);
      return exchange;
    };
    let verdict: Verdict;
    try {
      verdict = await body(call);
    } catch (error) {
      verdict = { passed: false, got: `the check could not run: ${(error as Error).message}` };
    }
    if (verdict.halt === true) this.stopped = verdict.got;
    this.results.push({ ...spec, passed: verdict.passed, got: verdict.got, exchanges });
    return verdict.passed;
  }
}

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
