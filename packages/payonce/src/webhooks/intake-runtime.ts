import type { Clock } from '../core/clock.js';
import { InvalidOption } from '../core/errors.js';
import type { IdempotencyGuard } from '../core/idempotency-guard.js';
import { MAX_TIMER_MS, nonNegativeInt, positiveInt } from '../core/options.js';
import { GroupCommit, type GroupCommitStore } from '../stores/sql/group-commit.js';
import { checkStackTransactions } from '../stores/sql/stack-one-commit.js';
import type { StackTransactions } from '../stores/sql/stack-transactions.js';
import { type Acknowledgement, jsonAcknowledgement } from './intake-acknowledgement.js';
import { clickAcknowledgement } from './intake-click.js';
import { IntakeEmitter } from './intake-events.js';
import type {
  StackWebhookEndpoint,
  TransactionalWebhookEndpoint,
  WebhookEndpoint,
  WebhookIntakeOptions,
} from './intake-options.js';
import { paymeAcknowledgement } from './intake-payme.js';
import { withRejectionStatus } from './intake-rejection-status.js';
import type { DeliveryJournal } from './journal/delivery-journal.js';
import { createRedactor, type Redactor } from './journal/redact.js';
import { RefusalLimiter } from './refusal-limiter.js';

/** An endpoint with its defaults applied. */
export interface ResolvedEndpoint {
  readonly endpoint: WebhookEndpoint | TransactionalWebhookEndpoint<unknown> | StackWebhookEndpoint<unknown>;
  /** The transactions of the application's stack of a one-commit endpoint on it, else `null`. */
  readonly stack: StackTransactions<unknown> | null;
  readonly ack: Acknowledgement;
  readonly fingerprint: 'raw-body' | 'none';
}

/** The intake's options checked and resolved once, shared by every delivery. */
export interface IntakeRuntime {
  readonly guard: IdempotencyGuard;
  readonly journal: DeliveryJournal | undefined;
  readonly clock: Clock;
  readonly maxBodyBytes: number;
  readonly maxErrorChars: number;
  readonly maxPayloadChars: number;
  /** Deepest JSON nesting a body may have before it is refused unparsed (see `maxJsonDepth`). */
  readonly maxJsonDepth: number;
  /** `undefined` = the guard's own `waitForInFlightMs`. */
  readonly waitForInFlightMs: number | undefined;
  readonly redactor: Redactor;
  /** Per-client buckets of refused unauthenticated deliveries; `null` when `refusalLimit: false`. */
  readonly refusalLimiter: RefusalLimiter | null;
  readonly emitter: IntakeEmitter;
  readonly endpoints: ReadonlyMap<string, ResolvedEndpoint>;
  /** The shared transactions of the one-commit endpoints (`groupCommit`); `null`: one transaction per delivery. */
  readonly groupCommit: GroupCommit<unknown> | null;
}

const DEFAULT_MAX_BODY_BYTES = 2_097_152;
const DEFAULT_MAX_JSON_DEPTH = 64;

function defaultAck(provider: string): Acknowledgement {
  if (provider === 'payme') return paymeAcknowledgement();
  if (provider === 'click') return clickAcknowledgement();
  return jsonAcknowledgement();
}

/**
 * The stack's transactions of an endpoint whose `transaction` is neither absent, `false` nor `true`, else `null`.
 * @throws {InvalidOption} it is not an opener of `payonce/tx/*`, or the guard's store is not a SQL store of its dialect.
 */
function stackOf(options: WebhookIntakeOptions, name: string, transaction: unknown): StackTransactions<unknown> | null {
  if (transaction === undefined || transaction === false || transaction === true) return null;
  return checkStackTransactions(transaction, options.guard.store, `endpoints.${name}.transaction`);
}

function resolveEndpoints(options: WebhookIntakeOptions): Map<string, ResolvedEndpoint> {
  const endpoints = new Map<string, ResolvedEndpoint>();
  for (const [name, endpoint] of Object.entries(options.endpoints ?? {})) {
    const provider = endpoint.profile.provider;
    if (endpoint.transaction === true) options.guard.transactionalStore(); // memory/Redis: TransactionsUnsupported, now
    const stack = stackOf(options, name, endpoint.transaction);
    const rejection = endpoint.rejectionStatus ?? endpoint.scheme.rejectionStatus ?? 401;
    if (rejection !== 400 && rejection !== 401) {
      const where = endpoint.rejectionStatus === undefined ? 'scheme.rejectionStatus' : 'rejectionStatus';
      throw new InvalidOption(`endpoints.${name}.${where}`, 'must be 400 or 401');
    }
    const prepareBatch = (endpoint as { prepareBatch?: unknown }).prepareBatch;
    if (prepareBatch !== undefined && (endpoint.transaction !== true || typeof prepareBatch !== 'function')) {
      throw new InvalidOption(
        `endpoints.${name}.prepareBatch`,
        'must be a function, on a `transaction: true` endpoint',
      );
    }
    const ack = endpoint.acknowledgement ?? defaultAck(provider);
    endpoints.set(name, {
      endpoint: endpoint as ResolvedEndpoint['endpoint'],
      stack,
      ack: rejection === 401 ? ack : withRejectionStatus(ack, rejection),
      fingerprint: endpoint.fingerprint ?? (provider === 'payme' || provider === 'click' ? 'none' : 'raw-body'),
    });
  }
  if (endpoints.size === 0) throw new InvalidOption('endpoints', 'at least one endpoint is required');
  return endpoints;
}

/**
 * Checks and resolves the intake's options. @throws {InvalidOption} no endpoint, a bad
 * `maxBodyBytes`/`maxErrorChars`/`maxPayloadChars`/`maxJsonDepth`/`rejectionStatus`/`waitForInFlightMs`/
 * `refusalLimit`, an endpoint `transaction` that is not `true`/`false`/a stack's transactions, a `prepareBatch` that
 * is not a function or is on an endpoint that is not `transaction: true`, a stack's
 * transactions on a guard whose store is not a SQL store of their dialect, or a `groupCommit` that is invalid or
 * on a store that is not a SQL store.
 * @throws {TransactionsUnsupported} an
 * endpoint is `transaction: true` on a guard whose store is memory or Redis.
 */
export function intakeRuntime(options: WebhookIntakeOptions): IntakeRuntime {
  const maxBodyBytes = positiveInt('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const maxErrorChars = positiveInt('maxErrorChars', options.maxErrorChars ?? 1_000);
  const maxPayloadChars = positiveInt('maxPayloadChars', options.maxPayloadChars ?? 65_536);
  const maxJsonDepth = positiveInt('maxJsonDepth', options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
  const redactor: Redactor =
    options.redaction !== undefined && 'redact' in options.redaction
      ? options.redaction
      : createRedactor(options.redaction);
  return Object.freeze({
    guard: options.guard,
    journal: options.journal,
    clock: options.guard.options.clock,
    maxBodyBytes,
    maxErrorChars,
    maxPayloadChars,
    maxJsonDepth,
    waitForInFlightMs:
      options.waitForInFlightMs === undefined
        ? undefined
        : nonNegativeInt('waitForInFlightMs', options.waitForInFlightMs, MAX_TIMER_MS),
    redactor,
    refusalLimiter:
      options.refusalLimit === false
        ? null
        : new RefusalLimiter(options.refusalLimit ?? {}, options.guard.options.clock),
    emitter: new IntakeEmitter(),
    endpoints: resolveEndpoints(options),
    groupCommit: groupCommitOf(options),
  });
}

/**
 * The group commit of `options.groupCommit`, or `null` when it is absent or `false`.
 * @throws {InvalidOption} the guard's store is not a SQL store, or the options are invalid.
 */
function groupCommitOf(options: WebhookIntakeOptions): GroupCommit<unknown> | null {
  const { groupCommit } = options;
  if (groupCommit === undefined || groupCommit === false) return null;
  const store = options.guard.store as Partial<GroupCommitStore<unknown>> & { supportsTransactions?: boolean };
  if (store.supportsTransactions !== true || store.dialect === undefined || typeof store.transaction !== 'function') {
    throw new InvalidOption(
      'groupCommit',
      `needs a SQL store (SqliteStore, PostgresStore, MysqlStore), got ${options.guard.store.name}`,
    );
  }
  return new GroupCommit(store as GroupCommitStore<unknown>, groupCommit);
}

/** The endpoint called `name`. @throws {InvalidOption} it is not configured. */
export function resolveEndpoint(runtime: IntakeRuntime, name: string): ResolvedEndpoint {
  const found = typeof name === 'string' ? runtime.endpoints.get(name) : undefined;
  if (!found) throw new InvalidOption('endpoint', 'is not a configured webhook endpoint');
  return found;
}
