import type { ClaimContext, IdempotencyGuard } from '../core/idempotency-guard.js';
import type { HandlerTransactionOf, Store } from '../core/store.js';
import type { GroupCommitOptions } from '../stores/sql/group-commit-options.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import type { Acknowledgement } from './intake-acknowledgement.js';
import type { DeliveryJournal } from './journal/delivery-journal.js';
import type { RedactionOptions, Redactor } from './journal/redact.js';
import type { ProviderEvent, ProviderProfile } from './providers/provider-event.js';
import type { RefusalLimitOptions } from './refusal-limiter.js';
import type { HeadersInput } from './verify/headers.js';
import type { SignatureScheme } from './verify/signature-scheme.js';

/** What a webhook handler learns besides the event. */
export interface WebhookContext {
  /** The receipt claim it runs under, or `null` for calls without a receipt key (Payme read-only methods). */
  readonly claim: ClaimContext | null;
  /** The request headers (names case-insensitive through `headerValue`). */
  readonly headers: HeadersInput;
  /** When the delivery arrived, epoch milliseconds (the guard's clock). */
  readonly receivedAtMs: number;
}

/**
 * The business step: applies one authentic, extracted event and returns the provider-specific result (any JSON
 * value; see the endpoint's acknowledgement), or throws `WebhookDecline` for a final refusal. Any other throw is
 * a failure: the receipt is marked failed, the provider gets a 5xx (or its retryable error) and redelivers.
 */
export type WebhookHandler = (event: ProviderEvent, context: WebhookContext) => unknown;

/** What a one-commit (`transaction: true`) handler learns: the context plus the open transaction. */
export interface TransactionalWebhookContext<Tx> extends WebhookContext {
  /**
   * The Kysely transaction that also holds the delivery's receipt: write the business effect through it. It
   * commits once, with the completed receipt, after the handler returns; a throw rolls both back.
   */
  readonly tx: Tx;
}

/**
 * The business step of a one-commit endpoint: like {@link WebhookHandler}, but it runs inside the transaction that
 * claims and completes the receipt (`context.tx`). Write only through `tx` (no network calls): after a deadlock the
 * whole transaction, handler included, runs again.
 */
export type TransactionalWebhookHandler<Tx> = (
  event: ProviderEvent,
  context: TransactionalWebhookContext<Tx>,
) => unknown;

/**
 * What the handler of a one-commit endpoint on the application's stack (`transaction: pgTransactions(pool)`,
 * `drizzleTransactions(db)`, …) learns: the context plus the ONE open transaction, seen two ways.
 * @typeParam N the stack's own transaction object (a pg `PoolClient`, a Drizzle `tx`, …).
 * @typeParam Tx payonce's Kysely view of the same transaction (`Transaction<DB>` of the guard's SQL store).
 */
export interface StackWebhookContext<N, Tx> extends WebhookContext {
  /**
   * The stack's own transaction object that also holds the delivery's receipt: write the business effect through
   * it with the application's own ORM or driver. It commits once, with the completed receipt, after the handler
   * returns; a throw rolls both back.
   */
  readonly tx: N;
  /**
   * The same transaction as payonce's Kysely `Transaction`, for payonce's other one-commit calls
   * (`outbox.enqueueOnce(payonceTx, …)`, the payments' transitions): their rows commit with `tx`'s writes.
   */
  readonly payonceTx: Tx;
}

/** What every endpoint has, whatever its commit mode. */
export interface WebhookEndpointBase {
  /** Reads the provider's payload (`stripeProfile()`, `paymeProfile()`, …). */
  readonly profile: ProviderProfile;
  /** Verifies the delivery on its raw bytes (`stripeScheme({ secrets })`, `paymeAuthScheme({ keys })`, …). */
  readonly scheme: SignatureScheme;
  /**
   * HTTP status of a delivery refused for a missing, wrong or stale signature (`WEBHOOK_SIGNATURE_INVALID`): 400
   * or 401. Only the status changes; the problem code, body and journal row stay the same. A signature that cannot
   * be parsed is always 400. Ignored by acknowledgements that answer every delivery 200 (Payme, Click).
   * @default the scheme's `rejectionStatus`, the status its provider's docs answer: 400 for `stripeScheme` and
   * `standardWebhooksScheme`, else 401 (RFC 9110 §15.5.2; GitHub's and Shopify's docs). Table: docs/webhooks.md.
   */
  readonly rejectionStatus?: 400 | 401;
  /**
   * How the provider is answered. @default `paymeAcknowledgement()` for profile `payme`, `clickAcknowledgement()`
   * for `click`, else `jsonAcknowledgement()`.
   */
  readonly acknowledgement?: Acknowledgement;
  /**
   * `raw-body`: the SHA-256 of the body is stored with the receipt and a redelivery with the same key but other
   * bytes is refused (`PAYLOAD_MISMATCH`, 422). `none`: not compared. @default `none` for Payme and Click (their
   * retries may renumber the JSON-RPC id or re-sign with a new `sign_time`), else `raw-body`.
   */
  readonly fingerprint?: 'raw-body' | 'none';
}

/**
 * One provider endpoint of the intake: how to verify, read, handle and answer its deliveries. The handler runs
 * under the receipt claim (`guard.run`): its business writes commit on their own, the receipt completes after.
 */
export interface WebhookEndpoint extends WebhookEndpointBase {
  /** `false` or absent: the default mode (claim, handler, completion are separate commits). */
  readonly transaction?: false;
  readonly handler: WebhookHandler;
}

/**
 * A one-commit endpoint (`transaction: true`, SQL stores only): per delivery ONE transaction claims the receipt,
 * runs the handler with that transaction (`context.tx`), completes the receipt and commits once. A handler that
 * throws, or a process that dies before the commit, leaves neither its business writes nor a receipt, so the
 * provider's redelivery runs it again; the business table needs no unique constraint of its own for the event.
 * @see `IdempotencyGuard.runInNewTransaction`; docs/webhook-handlers.md.
 */
export interface TransactionalWebhookEndpoint<Tx> extends WebhookEndpointBase {
  readonly transaction: true;
  /**
   * The business step, run with the open transaction (`context.tx`). Declared as a method so that a handler
   * which states its transaction type (`context: TransactionalWebhookContext<Transaction<DB>>`) fits an intake
   * whose guard's store type is the plain `Store` (`tx: unknown`); see `TransactionOf`.
   */
  handler(event: ProviderEvent, context: TransactionalWebhookContext<Tx>): unknown;
  /**
   * Group commit only (`WebhookIntakeOptions.groupCommit`; without it never called): called once in a shared
   * transaction, before the handlers of its deliveries to this endpoint run, with their events (two or more, in
   * arrival order, duplicates of a receipt already stored included; a delivery that finds a batch slot free runs
   * alone, without it), to read ahead what those handlers will read — on PostgreSQL, the orders and attempts their
   * payment events will be applied to: `prepareBatch: (tx, events) => payments.prelockProviderEvents(events
   * .flatMap((event) => toPaymentEvent(event) ?? []), tx)` (`Payments.prelockProviderEvents`), where `toPaymentEvent`
   * is the application's own mapping to a `ProviderPaymentEvent`, the one its handler applies; two statements for
   * the batch instead of two a delivery. It must not write, and must only read ahead what the handlers then write through
   * payonce. When it throws, the batch's deliveries each run in a transaction of their own instead (no delivery
   * fails for it); a transient error (deadlock) runs the batch again. Declared as a method for the reason `handler`
   * is. @see docs/design.md §11 "Group commit".
   */
  prepareBatch?(tx: Tx, events: readonly ProviderEvent[]): Promise<unknown>;
}

/**
 * A one-commit endpoint in a transaction of the application's OWN stack: per delivery payonce opens ONE
 * transaction through `transaction` (`pgTransactions(pool)`, `drizzleTransactions(db)`, any `payonce/tx/*`
 * opener), claims the receipt in it, runs the handler with the stack's transaction object (`context.tx`) and
 * payonce's view of it (`context.payonceTx`), completes the receipt and commits once. A handler that throws, or a
 * process that dies before the commit, leaves neither its business writes nor a receipt, so the provider's
 * redelivery runs it again. A redelivery that meets the same event still running elsewhere never waits inside the
 * transaction: it is answered as an in-flight duplicate (409 `REQUEST_IN_PROGRESS` + `Retry-After`, or the
 * provider's retryable answer). The guard's store must be a SQL store of the opener's dialect on the same database.
 * Written inline in `createWebhookIntake({ guard, endpoints })`, or declared with `webhookEndpoint({ transaction:
 * drizzleTransactions(db), … }, guard)`, its handler gets `context.tx` typed from the opener and `context.payonceTx`
 * from the guard's store.
 * @typeParam N the stack's own transaction object.
 * @typeParam Tx payonce's Kysely view (`Transaction<DB>` of the guard's store; `unknown` when not stated).
 * @see docs/your-stack.md "When payonce opens the transaction".
 */
export interface StackWebhookEndpoint<N, Tx = unknown> extends WebhookEndpointBase {
  /** The transactions of the application's stack (`pgTransactions(pool)`, `drizzleTransactions(db)`, …). */
  readonly transaction: StackTransactions<N>;
  /**
   * The business step, run in the open transaction (`context.tx`, `context.payonceTx`). Write only through them (no
   * network calls): after a deadlock or serialization failure the whole transaction, handler included, runs again.
   */
  handler(event: ProviderEvent, context: StackWebhookContext<N, Tx>): unknown;
}

/**
 * What an endpoint's `transaction` may be: absent or `false` (the default mode), `true` (one commit in the guard's
 * SQL store) or the transactions of the application's stack (`drizzleTransactions(db)`, `pgTransactions(pool)`, …).
 */
export type WebhookEndpointTransaction = StackTransactions<unknown> | boolean;

/**
 * The commit mode of each endpoint of an intake, by endpoint name: the type of its `transaction` (`unknown` when the
 * endpoint has none). `createWebhookIntake` infers it from the `endpoints` object, so an endpoint written inline is
 * typed from its own `transaction`; nobody writes it by hand. Spelled out instead of `unknown` so that `boolean`
 * is part of it: that keeps an inline `transaction: true` the literal `true` while it is inferred.
 */
export type WebhookEndpointModes = Readonly<Record<string, NonNullable<unknown> | boolean | null | undefined>>;

/** Every mode an endpoint may have: the modes of an intake when they are not inferred from its endpoints. */
export type AnyWebhookEndpointModes = Readonly<Record<string, WebhookEndpointTransaction | undefined>>;

/** The endpoint interface of one mode (`Mode` is not a union here). */
type EndpointOfMode<Mode, Tx> = [Mode] extends [StackTransactions<infer N>]
  ? StackWebhookEndpoint<N, Tx>
  : [Mode] extends [true]
    ? TransactionalWebhookEndpoint<Tx>
    : WebhookEndpoint;

/**
 * The endpoint whose `transaction` has the type `Mode`, its handler's context typed from it: for
 * `StackTransactions<N>`, `context.tx: N` and `context.payonceTx: Tx`; for `true`, `context.tx: Tx`; otherwise no
 * transaction. A union of modes is a union of endpoints, one per mode.
 * @typeParam Tx payonce's Kysely view of the transaction: `HandlerTransactionOf` the guard's store.
 */
export type WebhookEndpointFor<Mode, Tx> = [Mode] extends [never]
  ? WebhookEndpointFor<WebhookEndpointTransaction | undefined, Tx> // `transaction: x as never`: any endpoint
  : Mode extends unknown
    ? { readonly transaction?: Mode & WebhookEndpointTransaction } & EndpointOfMode<Mode, Tx>
    : never;

/**
 * The `endpoints` of an intake: each typed from its own `transaction` (see {@link WebhookEndpointFor}), so a handler
 * written inline gets `context.tx` and `context.payonceTx` without annotations.
 */
export type WebhookEndpoints<Modes extends WebhookEndpointModes, Tx> = {
  readonly [Name in keyof Modes]: WebhookEndpointFor<Modes[Name], Tx>;
};

/**
 * Options of {@link createWebhookIntake}.
 * @typeParam S the guard's store: its `HandlerTransactionOf` types the one-commit handlers' payonce transaction.
 * @typeParam Modes each endpoint's `transaction` type, inferred by `createWebhookIntake` (see {@link WebhookEndpointModes}).
 */
export interface WebhookIntakeOptions<
  S extends Store = Store,
  Modes extends WebhookEndpointModes = AnyWebhookEndpointModes,
> {
  /**
   * The receipt guard; its clock also stamps `receivedAtMs`. Any store for default endpoints; a SQL store
   * (`SqliteStore`, `PostgresStore`, `MysqlStore`) when an endpoint is `transaction: true`, and one of the opener's
   * dialect on the same database when an endpoint's `transaction` is the transactions of the application's stack.
   */
  readonly guard: IdempotencyGuard<S>;
  /**
   * Endpoints by name; the name is the `:provider` path segment of the route. At least one. Each handler's context
   * is typed from its endpoint's `transaction` and the guard's store (`context.tx`: the stack's transaction of
   * `drizzleTransactions(db)`, or the store's `Transaction<DB>` for `true`; `context.payonceTx`: the store's).
   */
  readonly endpoints: WebhookEndpoints<Modes, HandlerTransactionOf<S>>;
  /** Where one row per delivery goes. @default none (deliveries are only reported through `on('delivery')`) */
  readonly journal?: DeliveryJournal;
  /** Redaction applied to every payload and error before it is journaled or reported. @default DEFAULT_REDACT_PATHS */
  readonly redaction?: RedactionOptions | Redactor;
  /**
   * Largest accepted body, in bytes; a larger one is refused with 413 before verification, parsing, any receipt
   * or business action. Set the framework's own limit to the same value. @default 2_097_152 (2 MiB)
   */
  readonly maxBodyBytes?: number;
  /**
   * Per-client limit on refused unauthenticated deliveries (bad, missing or stale signature, body too large),
   * which anyone can send: past `burst` (then `perMinute`), a client's refusals are answered 429
   * `WEBHOOK_REFUSALS_LIMITED` with `Retry-After` and are not journaled (intake event `refusal-limited`).
   * Authentic deliveries are never limited. The client is `IntakeRequest.client`. `false` turns it off.
   * @default { burst: 100, perMinute: 60, maxClients: 10_000 }
   */
  readonly refusalLimit?: RefusalLimitOptions | false;
  /** Journaled error text is cut to this many characters. @default 1_000 */
  readonly maxErrorChars?: number;
  /** Journaled payload JSON is cut to this many characters (marked `…[TRUNCATED]`). @default 65_536 */
  readonly maxPayloadChars?: number;
  /**
   * Deepest nesting of JSON arrays and objects accepted in a body (`[[1]]` is 2). A deeper body is never parsed:
   * an authentic one is refused 400 `MALFORMED_WEBHOOK_PAYLOAD` before any receipt; a rejected one is journaled
   * without its payload. The check is one pass over the bytes, so a hostile body costs O(bytes).
   * @default 64 (provider payloads nest about 10 levels)
   */
  readonly maxJsonDepth?: number;
  /**
   * How long (ms) a redelivery that meets the same event still being processed (another worker or replica) waits
   * for it before the 409 + `Retry-After` (`in_progress`): finished in time, it is answered with the stored
   * acknowledgement as a duplicate (or runs as the retry of a failed one). Keep it well below the provider's
   * delivery timeout (see the provider's docs). See `GuardOptions.waitForInFlightMs` and docs/replicas.md.
   * @default the guard's `waitForInFlightMs` (0: answer 409 at once)
   */
  readonly waitForInFlightMs?: number;
  /**
   * Group commit for the one-commit endpoints (`transaction: true`; not those on the application's stack): the
   * deliveries that arrive while the store is busy share ONE transaction and ONE commit, each delivery in its own
   * savepoint, so a handler that throws rolls back only its own writes and gets its own answer. Each delivery's
   * journal row is written in its savepoint too (with a SQL journal of the same store), and no delivery is answered
   * before the commit that carries its receipt, its business writes and its journal row; a failed commit answers
   * every delivery of the batch 503 and none is acknowledged. A redelivery of an event still running in another
   * batch waits for that batch's commit (the receipt's row lock) and replays it; `waitForInFlightMs` does not apply.
   * `true` uses the defaults (16 deliveries a batch, at most 64; 10 batches at once, 1 on SQLite): give
   * `maxConcurrentBatches` the pool size or less.
   * @default false (one transaction per delivery)
   * @throws {InvalidOption} (from `createWebhookIntake`) for a value that is not a boolean or `GroupCommitOptions`,
   *   or on a guard whose store is not a SQL store.
   * @see docs/design.md §11 "Group commit".
   */
  readonly groupCommit?: boolean | GroupCommitOptions;
}
