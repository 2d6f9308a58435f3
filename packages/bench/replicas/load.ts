import { randomBytes, randomInt } from 'node:crypto';
import { Agent, request } from 'undici';
import type { ReplicaSet } from './replica-set.js';

/** One HTTP answer the load saw (status 0 = no answer: connection refused or reset). */
interface Answer {
  readonly status: number;
  readonly json: unknown;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** What the load observed; the invariants are checked on it and on the database afterwards. */
export interface LoadRecord {
  /** Customer flows started / with a paid checkout answer (201/200 naming an attempt). */
  flows: number;
  checkedOut: number;
  requests: number;
  /** Order ids answered per create Idempotency-Key (one flow = one customer = one key). */
  readonly ordersByKey: Map<string, Set<string>>;
  /** Customers (principals) of the flows. */
  readonly customers: Set<string>;
  /** 5xx or no answer from a replica while it was up (+1 s grace after its restart): must stay 0. */
  readonly errorsOutsideOutages: string[];
  /** 5xx or no answer during a replica's outage (expected: the process was killed). */
  errorsInOutages: number;
  /** 409 "in progress" answers still seen after the retry budget (a key held by a killed replica). */
  gaveUpInProgress: number;
  /** Checkout latencies, ms (first request to final 2xx answer). */
  readonly checkoutMs: number[];
  /** Duplicate checkouts (same key, another replica) answered 2xx with the same attempt as the first. */
  duplicateReplays: number;
}

/** A fresh load record. */
export function newLoadRecord(): LoadRecord {
  return {
    flows: 0,
    checkedOut: 0,
    requests: 0,
    ordersByKey: new Map(),
    customers: new Set(),
    errorsOutsideOutages: [],
    errorsInOutages: 0,
    gaveUpInProgress: 0,
    checkoutMs: [],
    duplicateReplays: 0,
  };
}

const agent = new Agent({ connections: 64, headersTimeout: 15_000, bodyTimeout: 15_000 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Closes the shared HTTP agent. */
export function closeLoadAgent(): Promise<void> {
  return agent.close();
}

async function send(
  set: ReplicaSet,
  record: LoadRecord,
  replica: number,
  method: 'POST' | 'GET',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  record.requests += 1;
  const sentAt = Date.now();
  let answer: Answer;
  try {
    const response = await request(`${set.urls[replica]}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
    });
    const text = await response.body.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {}
    answer = { status: response.statusCode, json, headers: response.headers };
  } catch {
    answer = { status: 0, json: null, headers: {} };
  }
  if (answer.status === 0 || answer.status >= 500) {
    if (set.wasDown(replica, sentAt) || set.wasDown(replica, Date.now())) record.errorsInOutages += 1;
    else record.errorsOutsideOutages.push(`${method} ${path} on replica ${replica + 1}: ${answer.status}`);
  }
  return answer;
}

/** Retries "still running" (409 + Retry-After) and outage answers on the next replica, for up to `budgetMs`. */
async function withRetries(
  set: ReplicaSet,
  record: LoadRecord,
  first: number,
  call: (replica: number) => Promise<Answer>,
  budgetMs = 12_000,
): Promise<Answer> {
  const until = Date.now() + budgetMs;
  for (let attempt = 0; ; attempt++) {
    const replica = (first + attempt) % set.urls.length;
    const answer = await call(replica);
    const inProgress = answer.status === 409 && answer.headers['retry-after'] !== undefined;
    const outage = answer.status === 0 || answer.status >= 500;
    if ((!inProgress && !outage) || Date.now() > until) {
      if (inProgress) record.gaveUpInProgress += 1;
      return answer;
    }
    await sleep(inProgress ? 200 : 100);
  }
}

const attemptIdOf = (answer: Answer): string | null => {
  const id = (answer.json as { attempt?: { id?: unknown } | null } | null)?.attempt?.id;
  return typeof id === 'string' ? id : null;
};

/**
 * One customer's flow, spread over the replicas: create an order with an Idempotency-Key (30%: the same create
 * sent to another replica at once), check out with a key (30%: the same checkout to another replica at once, 15%:
 * another key as a second tab), then read the order. Provider webhooks follow on their own (10% of the payments
 * are delivered twice by the sandbox).
 */
export async function customerFlow(set: ReplicaSet, record: LoadRecord, turn: number): Promise<void> {
  const n = set.urls.length;
  const customer = `soak-${randomBytes(6).toString('hex')}`;
  const createKey = `soak-create-${randomBytes(8).toString('hex')}`;
  record.flows += 1;
  record.customers.add(customer);
  const money = { amountMinor: randomInt(100, 100_000), currency: 'EUR' };
  const headers = (key?: string) => ({ 'x-customer-id': customer, ...(key ? { 'idempotency-key': key } : {}) });
  const create = (replica: number) =>
    withRetries(set, record, replica, (r) => send(set, record, r, 'POST', '/orders', headers(createKey), money));
  const creates = await Promise.all(Math.random() < 0.3 ? [create(turn), create(turn + 1)] : [create(turn)]);
  const ids = new Set<string>();
  for (const answer of creates) {
    const id = (answer.json as { order?: { id?: unknown } } | null)?.order?.id;
    if (answer.status === 201 && typeof id === 'string') ids.add(id);
  }
  record.ordersByKey.set(createKey, ids);
  const [orderId] = [...ids];
  if (orderId === undefined) return;
  if (Math.random() < 0.1) set.sandbox.controls.plan({ orderId }, { duplicateDeliveries: 1 });
  const payKey = `soak-pay-${randomBytes(8).toString('hex')}`;
  const path = `/orders/${orderId}/checkout`;
  const started = performance.now();
  const checkout = (replica: number, key: string) =>
    withRetries(set, record, replica, (r) => send(set, record, r, 'POST', path, headers(key), {}));
  const calls = [checkout(turn + 1, payKey)];
  const roll = Math.random();
  if (roll < 0.3) calls.push(checkout(turn + 2, payKey));
  else if (roll < 0.45) calls.push(checkout(turn + 2, `soak-tab-${randomBytes(8).toString('hex')}`));
  const answers = await Promise.all(calls);
  const paid = answers.filter((a) => (a.status === 200 || a.status === 201) && attemptIdOf(a) !== null);
  if (paid.length > 0) {
    record.checkedOut += 1;
    record.checkoutMs.push(performance.now() - started);
  }
  if (roll < 0.3 && paid.length === 2 && attemptIdOf(paid[0]!) === attemptIdOf(paid[1]!)) record.duplicateReplays += 1;
  await send(set, record, (turn + 3) % n, 'GET', `/orders/${orderId}`, headers());
}

/** Runs `concurrency` flow loops for `durationMs`; each loop starts its next flow when the previous ends. */
export async function runLoad(
  set: ReplicaSet,
  record: LoadRecord,
  durationMs: number,
  concurrency: number,
): Promise<number> {
  const until = Date.now() + durationMs;
  const started = performance.now();
  let turn = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) await customerFlow(set, record, turn++ % set.urls.length);
    }),
  );
  return performance.now() - started;
}
