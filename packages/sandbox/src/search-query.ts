import type { SandboxPayment } from './sandbox-payment.js';
import { invalidParam } from './wire/stripe-api-error.js';

type Clause = (payment: SandboxPayment) => boolean;

const TOKEN =
  /^\s*(?:metadata\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]|(status|currency|amount))\s*(:|>=|<=|>|<)\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|(\d+))\s*/;

const unquote = (text: string) => text.replace(/\\(.)/g, '$1');

function clauseOf(field: string, isMetadata: boolean, op: string, value: string): Clause {
  if (isMetadata) {
    if (op !== ':') throw invalidParam('query', `metadata supports only ':' (got '${op}')`);
    return (p) => p.metadata[field] === value;
  }
  if (field === 'amount') {
    const n = Number(value);
    const compare: Record<string, (a: number) => boolean> = {
      ':': (a) => a === n,
      '>': (a) => a > n,
      '<': (a) => a < n,
      '>=': (a) => a >= n,
      '<=': (a) => a <= n,
    };
    const test = compare[op]!;
    return (p) => test(p.amountMinor);
  }
  if (op !== ':') throw invalidParam('query', `${field} supports only ':'`);
  return field === 'status' ? (p) => p.status === value : (p) => p.currency.toLowerCase() === value.toLowerCase();
}

/**
 * Parses the subset of Stripe's search query language the sandbox serves on PaymentIntents: clauses
 * `metadata['key']:'value'`, `status:'succeeded'`, `currency:'usd'`, `amount>1000` (`:`, `>`, `<`, `>=`, `<=`),
 * joined by `AND` or by `OR` (not both, as at Stripe). Values are quoted with `'` or `"`, `\` escapes.
 * @throws {StripeApiError} 400 `invalid_request_error` (param `query`) for anything else.
 * @see https://docs.stripe.com/search#search-query-language
 */
export function parseSearchQuery(query: string): Clause {
  let rest = query;
  const clauses: Clause[] = [];
  const joins = new Set<string>();
  if (query.length > 1_000) throw invalidParam('query', 'The search query is too long.');
  for (;;) {
    const match = TOKEN.exec(rest);
    if (match === null) throw invalidParam('query', `Invalid search query: ${query.slice(0, 200)}`);
    const key = match[1] ?? match[2];
    const field = key !== undefined ? unquote(key) : match[3]!;
    const value = match[5] !== undefined ? unquote(match[5]) : match[6] !== undefined ? unquote(match[6]) : match[7]!;
    clauses.push(clauseOf(field, key !== undefined, match[4]!, value));
    rest = rest.slice(match[0].length);
    if (rest.trim() === '') break;
    const join = /^(AND|OR)\s+/.exec(rest);
    if (join === null) throw invalidParam('query', `Invalid search query: ${query.slice(0, 200)}`);
    joins.add(join[1]!);
    rest = rest.slice(join[0].length);
  }
  if (joins.size > 1) throw invalidParam('query', 'A search query cannot mix AND and OR.');
  return joins.has('OR') ? (p) => clauses.some((c) => c(p)) : (p) => clauses.every((c) => c(p));
}
