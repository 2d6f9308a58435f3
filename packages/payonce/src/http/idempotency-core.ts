import {
  InvalidOption,
  PayloadMismatch,
  PayonceError,
  RequestInProgress,
  StoreSchemaMissing,
  StoreUnavailable,
} from '../core/errors.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import type { Outcome } from '../core/outcome.js';
import type { Receipt } from '../core/receipt.js';
import type { RequestKey } from '../core/request-key.js';
import { TransactionFence } from '../core/transaction-fence.js';
import { activeTracer } from '../otel/tracing.js';
import { checkStackTransactions, inStackTransaction, runInStackTransaction } from '../stores/sql/stack-one-commit.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import type { HttpExchange, HttpResponse } from './http-exchange.js';
import { httpRequestKey } from './http-request-key.js';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from './idempotency-key-header.js';
import {
  type IdempotencyKeyPolicy,
  type ResolvedIdempotencyKeyPolicy,
  resolveIdempotencyKeyPolicy,
} from './idempotency-key-policy.js';
import { inIdempotencySpan } from './idempotency-span.js';
import { problemResponse } from './problem-response.js';
import type { ProblemCode } from './problem-status.js';
import type { StackTransactionBox } from './transaction-slot.js';

export type { StackTransactionBox } from './transaction-slot.js';

/**
 * What a route gives back to the core: the response to send, and `threw: true` when the route handler threw (or
 * passed an error on) and the framework's error handler made `response`. A route that threw releases the key like a
 * 5xx (nothing is stored, the one-commit transaction rolls back), whatever status its error handler chose.
 */
export type RouteAnswer = HttpResponse & { readonly threw?: boolean };

/**
 * The route as the core calls it: `tx` is the one-commit transaction as payonce's Kysely `Transaction` (`undefined`
 * outside the one-commit modes), `stack` the application's stack's own transaction object in a one-commit mode on it.
 * It resolves once the route handler has finished (returned, or thrown and been answered by the framework's error
 * handler) and its answer is complete: the one-commit transaction commits only then. Both objects are lent to the
 * route (`TransactionFence`): once it resolves, using them throws `TransactionEnded`.
 */
export type RouteNext = (tx?: unknown, stack?: StackTransactionBox) => Promise<RouteAnswer>;

/** Options of `createIdempotencyCore`: the policy plus the guard whose store holds the keys. */
export interface IdempotencyCoreOptions extends IdempotencyKeyPolicy {
  /**
   * The guard that claims, stores and replays. Its store may be shared with webhook receipts: `purge()` and the
   * expiry check delete only receipts of the policy's `namespace` (the provider of every HTTP key), so receipts
   * of other providers keep their own, usually longer, retention. Keep `namespace` distinct from every webhook
   * provider name.
   */
  readonly guard: IdempotencyGuard;
  /**
   * The one-commit mode (SQL stores only): every covered request runs its route handler inside ONE new
   * transaction of the guard's store that also claims and completes the key's receipt, and the handler reads
   * it with `fastifyTransaction(request)` / `expressTransaction(req)` / `honoTransaction(c)` to write its
   * business rows. Claim, business writes and the stored response commit together: a crash before the commit
   * leaves neither the rows nor a receipt, so the client's retry runs once more and creates them once. A 5xx
   * response or a throwing handler rolls the business writes back with the claim. Covered requests without a key
   * (on routes that do not require one) run in a transaction too, without a receipt. The route handler must not
   * open other transactions on a single-connection database (SQLite) or call the network inside.
   *
   * The transactions of the application's stack (`pgTransactions(pool)`, `drizzleTransactions(db)`, any
   * `payonce/tx/*` opener) instead of `true`: the same one-commit mode in ONE transaction payonce opens on that stack;
   * the route reads the stack's own transaction object with `fastifyStackTransaction(request)` /
   * `expressStackTransaction(req)` / `honoStackTransaction(c)` and payonce's view of it with the accessors above. A
   * request meeting the same key still running elsewhere never waits inside the transaction: 409
   * `REQUEST_IN_PROGRESS` at once. The guard's store must be a SQL store of the opener's dialect (`InvalidOption`
   * at construction otherwise). See docs/your-stack.md "When payonce opens the transaction".
   * @default false
   */
  readonly transaction?: boolean | StackTransactions<unknown>;
}

/**
 * What `handle` decided. `executed`: the route handler ran in this call and the adapter sends the handler's own
 * response unchanged (`stored` tells whether it will replay: false for 5xx, which released the key, and for
 * requests the layer does not cover). `replayed` and `rejected` carry the response the adapter must send instead.
 */
export type IdempotencyResult =
  | { readonly kind: 'executed'; readonly response: HttpResponse; readonly stored: boolean }
  | { readonly kind: 'replayed'; readonly response: HttpResponse }
  | { readonly kind: 'rejected'; readonly code: ProblemCode; readonly response: HttpResponse };

/** The framework-neutral Idempotency-Key layer; adapters translate to and from it. */
export interface IdempotencyCore {
  /** The policy after defaults and validation. */
  readonly policy: ResolvedIdempotencyKeyPolicy;
  /** The guard (and so the store and clock) that holds the keys. */
  readonly guard: IdempotencyGuard;
  /** True when `method` is covered by the policy (the adapter may skip reading the body otherwise). */
  covers(method: string): boolean;
  /** True in a one-commit mode (`transaction: true` or a stack's): `next` is called with the open transaction. */
  readonly transactional: boolean;
  /** The transactions of the application's stack the one-commit mode opens, or `null` (not that mode). */
  readonly stack: StackTransactions<unknown> | null;
  /**
   * Decides one request; calls `next` (which runs the route handler and returns its response) at most once, and
   * only when the request owns the key, or when the layer does not apply to it. In the one-commit modes `next`
   * gets the open transaction (payonce's Kysely `Transaction`), else `undefined`; on the application's stack also
   * the stack's own transaction object, boxed (`stack.tx`).
   * @throws whatever `next` throws (after the key is released), or `InvalidOption` for a principal that is
   *   not a non-empty string.
   */
  handle(exchange: HttpExchange, next: RouteNext): Promise<IdempotencyResult>;
  /**
   * Deletes finished keys older than `expiryMs` of this layer's `namespace` only (never another provider's
   * receipts in a shared store); returns how many. @throws {StoreUnavailable}
   */
  purge(): Promise<number>;
}

/**
 * Thrown inside the guard for a 5xx response or a route that threw, so the guard marks the key `failed` (released,
 * retry runs again) and a one-commit transaction rolls back.
 */
class ServerErrorReleased extends Error {
  constructor(answer: RouteAnswer) {
    super(
      answer.threw === true
        ? `route handler threw (its error handler answered ${answer.status}); key released`
        : `route handler responded ${answer.status}; key released`,
    );
    this.name = 'ServerErrorReleased';
  }
}

/** True for an answer that must not be stored: a 5xx, or a route handler that threw. */
const releases = (answer: RouteAnswer): boolean => answer.status >= 500 || answer.threw === true;

/**
 * Calls the route with the one-commit transaction objects lent through a {@link TransactionFence}, closed as soon
 * as the route's answer is in (before payonce completes the receipt and commits): a write the route left running
 * is refused with `TransactionEnded` instead of running outside the transaction.
 */
async function callRoute(next: RouteNext, tx: unknown, stack: StackTransactionBox | undefined): Promise<RouteAnswer> {
  if (tx === undefined) return await next(undefined, stack);
  const fence = new TransactionFence();
  try {
    return await next(fence.lend(tx), stack === undefined ? undefined : { tx: fence.lend(stack.tx) });
  } finally {
    fence.close();
  }
}

/** The response as the guard stores it: status, the policy's stored headers (lower case), body bytes. */
type StoredShape = { readonly status: number; readonly headers: Record<string, string>; readonly body: Uint8Array };

/**
 * One call of the route under a claim: runs `next`, keeps the route's own response (`produced`, sent unchanged
 * when it executes) and gives the guard what it stores; a 5xx is thrown as `ServerErrorReleased` so the guard
 * releases the key. A small object per claim round instead of closures made per request.
 */
class RouteCall {
  produced: RouteAnswer | undefined = undefined;

  constructor(
    private readonly next: RouteNext,
    private readonly storedOf: (response: HttpResponse) => StoredShape,
  ) {}

  async run(tx: unknown, stack?: StackTransactionBox): Promise<StoredShape> {
    const produced = await callRoute(this.next, tx, stack);
    this.produced = produced;
    if (releases(produced)) throw new ServerErrorReleased(produced);
    return this.storedOf(produced);
  }
}

const REPLAYED_HEADER = 'idempotent-replayed';

/** Codes of the guard's errors that become a problem response; anything else (a bug, a bad option) is rethrown. */
type GuardRejection =
  | 'REQUEST_IN_PROGRESS'
  | 'PAYLOAD_MISMATCH'
  | 'CLAIM_LOST'
  | 'STORE_UNAVAILABLE'
  | 'STORE_SCHEMA_MISSING'
  | 'RECEIPT_CORRUPTED';
const GUARD_REJECTIONS: ReadonlySet<string> = new Set<GuardRejection>([
  'REQUEST_IN_PROGRESS',
  'PAYLOAD_MISMATCH',
  'CLAIM_LOST',
  'STORE_UNAVAILABLE',
  'STORE_SCHEMA_MISSING',
  'RECEIPT_CORRUPTED',
]);
const isGuardRejection = (code: string): code is GuardRejection => GUARD_REJECTIONS.has(code);

function detailOf(code: GuardRejection): string {
  switch (code) {
    case 'REQUEST_IN_PROGRESS':
      return 'A request with this Idempotency-Key is still being processed; retry after the Retry-After delay.';
    case 'PAYLOAD_MISMATCH':
      return 'This Idempotency-Key was already used for a different request (method, path or body differ).';
    case 'CLAIM_LOST':
      return 'This request ran too long and another request took over its Idempotency-Key; its result was not stored.';
    case 'STORE_UNAVAILABLE':
      return 'The idempotency store failed; retry with the same Idempotency-Key.';
    case 'STORE_SCHEMA_MISSING':
      return (
        "The idempotency store is not migrated (its tables are missing); nothing ran. The server's operators must " +
        'migrate it; retry with the same Idempotency-Key later.'
      );
    case 'RECEIPT_CORRUPTED':
      return 'The stored receipt of this Idempotency-Key is corrupted (no payload fingerprint); nothing was run.';
  }
}

function rejected(error: PayonceError, code: GuardRejection): IdempotencyResult {
  const headers: Record<string, string> = {};
  if (error instanceof RequestInProgress || error instanceof StoreUnavailable || error instanceof StoreSchemaMissing)
    headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
  return { kind: 'rejected', code, response: problemResponse(code, detailOf(code), headers) };
}

/**
 * Builds the Idempotency-Key layer of docs/design.md §4 on an `IdempotencyGuard`:
 * - covered method (default POST, PATCH) without the header on a route that requires one → 400
 *   `IDEMPOTENCY_KEY_MISSING`; malformed value (see `parseIdempotencyKey`) → 400 `IDEMPOTENCY_KEY_INVALID`;
 * - the key is scoped by principal, method and route pattern (`httpRequestKey`) and claimed with the policy's
 *   fingerprint, which covers the concrete target: the same key on another path of the pattern → 422;
 * - same key, different fingerprint → 422 `PAYLOAD_MISMATCH`; still running → 409 `REQUEST_IN_PROGRESS` with
 *   `Retry-After` in whole seconds; both leave the owner's claim untouched;
 * - the store failed → 503 `STORE_UNAVAILABLE`, its tables are missing → 503 `STORE_SCHEMA_MISSING` (the guard
 *   reports that once: `store:schema-missing`), both with `Retry-After`;
 * - a 2xx, 3xx or 4xx response is stored (status, the policy's `storedHeaders`, body bytes) and replayed to
 *   every reuse with `Idempotent-Replayed: true`; a 5xx response or a throwing `next` releases the key (receipt
 *   `failed`), so the next retry runs the handler again; a released key stays bound to its first fingerprint;
 * - a finished key older than `expiryMs` (age > expiryMs, the same cut-off as `purge`) is expired: finding one
 *   purges expired keys of `namespace` (never other providers' receipts in a shared store) and claims afresh.
 * - with `transaction: true` (one-commit mode) the claim, the route's business writes (through the transaction
 *   handed to `next`) and the stored response commit in ONE transaction (`IdempotencyGuard.runInNewTransaction`);
 *   with `transaction: <your stack's transactions>` that transaction is one of the application's stack.
 * @throws {InvalidOption} for a bad policy (see `resolveIdempotencyKeyPolicy`), a `transaction` that is neither a
 *   boolean nor a stack's transactions, or a stack's transactions whose dialect is not the guard's SQL store's.
 * @throws {TransactionsUnsupported} `transaction: true` on a guard whose store is memory or Redis, at construction.
 * @see draft-ietf-httpapi-idempotency-key-header-07 §2.5–2.7; Stripe API reference "Idempotent requests";
 *   docs/design.md §4.
 * @example
 * const core = createIdempotencyCore({ guard: new IdempotencyGuard(store), storedHeaders: ['content-type'] });
 * const result = await core.handle(exchange, () => runRoute(exchange));
 */
export function createIdempotencyCore(options: IdempotencyCoreOptions): IdempotencyCore {
  const { guard, transaction = false, ...rest } = options;
  const policy = resolveIdempotencyKeyPolicy(rest);
  const stack =
    transaction === true || transaction === false
      ? null
      : checkStackTransactions(transaction, guard.store, 'transaction');
  const transactional = transaction === true || stack !== null;
  const store = transaction === true ? guard.transactionalStore() : null; // memory/Redis: TransactionsUnsupported, now
  const clock = guard.options.clock;
  const expired = (receipt: Receipt): boolean =>
    receipt.status !== 'processing' &&
    receipt.finishedAtMs !== null &&
    clock.now() - receipt.finishedAtMs > policy.expiryMs;
  const purge = (): Promise<number> => guard.purge({ olderThan: policy.expiryMs, provider: policy.namespace });
  // Adapters hand the method over upper case ('POST'), so a covered one is found as it is, with no case mapping.
  const upperMethod = (method: string): string => (policy.methods.includes(method) ? method : method.toUpperCase());

  const storedOf = (response: HttpResponse): StoredShape => {
    const headers: Record<string, string> = {};
    for (const name in response.headers) {
      const lower = name.toLowerCase();
      if (policy.storedHeaders.includes(lower)) headers[lower] = response.headers[name]!;
    }
    return { status: response.status, headers, body: response.body };
  };

  async function claimAndRun(
    key: RequestKey,
    fingerprint: string,
    signal: AbortSignal | undefined,
    next: RouteNext,
  ): Promise<IdempotencyResult> {
    const runOptions = { fingerprint, waitForInFlightMs: policy.waitForInFlightMs, signal };
    for (let round = 0; ; round++) {
      const call = new RouteCall(next, storedOf);
      try {
        let outcome: Outcome;
        if (stack !== null) {
          const run = (native: unknown, _claim: unknown, payonceTx: unknown) => call.run(payonceTx, { tx: native });
          outcome = await runInStackTransaction(guard, stack, key, run, runOptions);
        } else if (store !== null) outcome = await guard.runInNewTransaction(key, (tx) => call.run(tx), runOptions);
        else outcome = await guard.run(key, () => call.run(undefined), runOptions);
        if (!outcome.isReplay) return { kind: 'executed', response: call.produced!, stored: true };
        if (round === 0 && expired(outcome.receipt)) {
          await purge();
          continue;
        }
        const { status, headers, body } = outcome.response;
        return { kind: 'replayed', response: { status, headers: { ...headers, [REPLAYED_HEADER]: 'true' }, body } };
      } catch (error) {
        if (error instanceof ServerErrorReleased && call.produced)
          return { kind: 'executed', response: call.produced, stored: false };
        if (error instanceof PayloadMismatch && round === 0) {
          const receipt = await guard.find(key);
          if (receipt && expired(receipt)) {
            await purge();
            continue;
          }
        }
        if (error instanceof PayonceError && isGuardRejection(error.code)) return rejected(error, error.code);
        throw error;
      }
    }
  }

  /** A method the policy does not cover: the route runs, nothing is stored. */
  async function notCovered(next: RouteNext): Promise<IdempotencyResult> {
    return { kind: 'executed', response: await next(), stored: false };
  }

  /** A covered request without a key: in the one-commit mode its handler still runs in one transaction. */
  async function withoutKey(next: RouteNext): Promise<IdempotencyResult> {
    if (store === null && stack === null) return { kind: 'executed', response: await next(), stored: false };
    let produced: HttpResponse | undefined;
    const work = async (tx: unknown, box?: StackTransactionBox) => {
      produced = await callRoute(next, tx, box);
      if (releases(produced)) throw new ServerErrorReleased(produced); // rolls its writes back
    };
    try {
      if (stack !== null) await inStackTransaction(stack, (native, payonceTx) => work(payonceTx, { tx: native }));
      else await store!.transaction((tx) => work(tx));
    } catch (error) {
      if (!(error instanceof ServerErrorReleased) || produced === undefined) throw error;
    }
    return { kind: 'executed', response: produced!, stored: false };
  }

  function decide(exchange: HttpExchange, next: RouteNext): Promise<IdempotencyResult> {
    const method = upperMethod(exchange.method);
    if (!policy.methods.includes(method)) return notCovered(next);
    const parsed = parseIdempotencyKey(exchange.headers[IDEMPOTENCY_KEY_HEADER]);
    if (parsed.kind === 'invalid') {
      const detail = `The Idempotency-Key header is malformed: ${parsed.reason}.`;
      return Promise.resolve({
        kind: 'rejected',
        code: 'IDEMPOTENCY_KEY_INVALID',
        response: problemResponse('IDEMPOTENCY_KEY_INVALID', detail),
      });
    }
    if (parsed.kind === 'missing') {
      if (!policy.requireKey({ method, route: exchange.route })) return withoutKey(next);
      const detail = `${method} ${exchange.route} requires an Idempotency-Key request header.`;
      return Promise.resolve({
        kind: 'rejected',
        code: 'IDEMPOTENCY_KEY_MISSING',
        response: problemResponse('IDEMPOTENCY_KEY_MISSING', detail),
      });
    }
    if (typeof exchange.principal !== 'string' || exchange.principal.length === 0) {
      throw new InvalidOption('principal', 'the adapter must resolve a non-empty principal string');
    }
    const key = httpRequestKey(policy.namespace, exchange.principal, method, exchange.route, parsed.key);
    // The exchange is handed to the fingerprint as it is when its method is already upper case (every adapter's).
    const fingerprint = policy.fingerprint(exchange.method === method ? exchange : { ...exchange, method });
    return claimAndRun(key, fingerprint, exchange.signal, next);
  }

  return Object.freeze({
    policy,
    guard,
    transactional,
    stack,
    covers: (method: string) => policy.methods.includes(upperMethod(method)),
    purge,
    handle(exchange: HttpExchange, next: RouteNext): Promise<IdempotencyResult> {
      // Not an async function: the claim's own promise is returned as it is (no promise of ours around it, which
      // the guard's promise hooks would also pay for); a synchronous throw still becomes a rejection.
      try {
        return activeTracer() === undefined
          ? decide(exchange, next)
          : inIdempotencySpan(exchange.method, exchange.route, () => decide(exchange, next));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  });
}

/** Where an adapter gets its core: options to build one, or a core built with `createIdempotencyCore` (to share it, or to call `purge` on a schedule). */
export type IdempotencyCoreSource = IdempotencyCoreOptions | { readonly core: IdempotencyCore };

/** The core of `source`: `source.core`, or a new one. @throws {InvalidOption} for a bad policy. */
export function coreOf(source: IdempotencyCoreSource): IdempotencyCore {
  return 'core' in source ? source.core : createIdempotencyCore(source);
}
