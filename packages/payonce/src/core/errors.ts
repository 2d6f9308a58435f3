import { PayonceError } from './payonce-error.js';
import type { RequestKey } from './request-key.js';

export { InvalidRequestKey, PayonceError } from './payonce-error.js';

/**
 * Stable machine-readable codes of every error payonce throws. `src/http` maps each code to an HTTP
 * status (see `docs/errors.md`); core itself never speaks HTTP.
 */
export type PayonceErrorCode =
  | 'INVALID_REQUEST_KEY'
  | 'INVALID_OPTION'
  | 'REQUEST_IN_PROGRESS'
  | 'PAYLOAD_MISMATCH'
  | 'CLAIM_LOST'
  | 'STORE_UNAVAILABLE'
  | 'TRANSACTIONS_UNSUPPORTED'
  | 'RECEIPT_CORRUPTED'
  | 'NESTED_CLAIM'
  | 'TRANSACTION_ENDED'
  | 'STORE_SCHEMA_MISSING';

/** An option passed to a payonce constructor or factory is out of range. Thrown once, at construction. */
export class InvalidOption extends PayonceError {
  readonly code = 'INVALID_OPTION';
  readonly option: string;
  constructor(option: string, reason: string) {
    super(`invalid option ${option}: ${reason}`);
    this.option = option;
  }
}

/**
 * Another worker holds a fresh claim on this key: the work is not done yet, so the caller must not
 * report success. HTTP: 409 with `Retry-After` (seconds, rounded up from `retryAfterMs`).
 * @see docs/design.md §3 "Claim".
 */
export class RequestInProgress extends PayonceError {
  readonly code = 'REQUEST_IN_PROGRESS';
  readonly key: RequestKey;
  /** Suggested wait before retrying, in milliseconds (never more than the time left on the lease). */
  readonly retryAfterMs: number;
  constructor(key: RequestKey, retryAfterMs: number) {
    super(`receipt ${key.toString()} is held by another worker`);
    this.key = key;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The same key arrived with a different payload fingerprint (SHA-256 of the raw body): the caller reused a
 * key for a different request. Nothing was run. HTTP: 422.
 * @see docs/design.md §3; IETF draft-ietf-httpapi-idempotency-key-header §2.7.
 */
export class PayloadMismatch extends PayonceError {
  readonly code = 'PAYLOAD_MISMATCH';
  readonly key: RequestKey;
  readonly storedFingerprint: string;
  readonly receivedFingerprint: string;
  constructor(key: RequestKey, storedFingerprint: string, receivedFingerprint: string) {
    super(`receipt ${key.toString()} was claimed with a different payload`);
    this.key = key;
    this.storedFingerprint = storedFingerprint;
    this.receivedFingerprint = receivedFingerprint;
  }
}

/**
 * Fencing: the handler finished, but its claim had been taken over by another worker (stale takeover), so
 * its result was NOT recorded and the receipt keeps the winner's outcome. HTTP: 409.
 * @see docs/design.md §3 "Fencing".
 */
export class ClaimLost extends PayonceError {
  readonly code = 'CLAIM_LOST';
  readonly key: RequestKey;
  /** The attempt number this handler held. */
  readonly attempt: number;
  constructor(key: RequestKey, attempt: number) {
    super(`claim ${attempt} on ${key.toString()} was taken over; result not recorded`);
    this.key = key;
    this.attempt = attempt;
  }
}

/**
 * How long a client is told to wait before retrying after a 503 `STORE_UNAVAILABLE`, in milliseconds (sent as
 * `Retry-After: 1`, whole seconds per RFC 9110 §10.2.3): a store that is down is usually back, or failed over,
 * within seconds, and the retry is safe (nothing was recorded). @see issue 34 item 17.
 */
export const STORE_RETRY_AFTER_MS = 1_000;

/**
 * The store could not be reached or answered with an unexpected error. The original driver error is in
 * `cause`. Nothing is known to have been recorded. HTTP: 503 with `Retry-After` ({@link STORE_RETRY_AFTER_MS}).
 */
export class StoreUnavailable extends PayonceError {
  readonly code = 'STORE_UNAVAILABLE';
  /** Suggested wait before a retry, in milliseconds (`Retry-After` of the 503 answer). */
  readonly retryAfterMs = STORE_RETRY_AFTER_MS;
  constructor(operation: string, cause: unknown) {
    super(`store failed during ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * payonce's tables are not where the store looks for them: the driver answered "no such table" or "no such schema
 * or database" (PostgreSQL SQLSTATE 42P01 `undefined_table` or 3F000 `invalid_schema_name`, MySQL/MariaDB errno 1146
 * `ER_NO_SUCH_TABLE` or 1049 `ER_BAD_DB_ERROR`, SQLite `no such table`). The migrations were never run on this
 * database (`payonce migrate`), or the store's `schema` option names another schema than the one they were run in.
 * A configuration failure, not an outage: it lasts until an operator acts, so the guard reports it once
 * (`store:schema-missing`). The driver error is the `cause`; nothing was recorded. HTTP: 503 with `Retry-After`
 * (`STORE_RETRY_AFTER_MS`), as for a store that is down, with its own code.
 * @see docs/errors.md `STORE_SCHEMA_MISSING`; docs/your-stack.md "Migration tools".
 */
export class StoreSchemaMissing extends PayonceError {
  readonly code = 'STORE_SCHEMA_MISSING';
  /** Suggested wait before a retry, in milliseconds (`Retry-After` of the 503 answer). */
  readonly retryAfterMs = STORE_RETRY_AFTER_MS;
  /** What the driver named as missing (`payonce.payonce_receipts`, a schema or database name), or `null`. */
  readonly missing: string | null;
  /** The store's `schema` option (PostgreSQL schema, MySQL database), or `null`: the connection's own. */
  readonly schema: string | null;
  constructor(dialect: string, missing: string | null, schema: string | null, cause: unknown) {
    const what = missing === null ? "payonce's tables" : `"${missing}"`;
    const where = schema === null ? "the connection's search_path or database" : `schema "${schema}"`;
    const fix =
      schema === null
        ? 'run `payonce migrate` against this database (or store.migrate()), or pass the `schema` (or `tablePrefix`) option the tables were migrated with'
        : `run \`payonce migrate --schema ${schema}\` against this database (or store.migrate()), or fix the store's \`schema\` option`;
    super(`${dialect}: ${what} does not exist in ${where}: ${fix}`, { cause });
    this.missing = missing;
    this.schema = schema;
  }
}

/**
 * A one-commit transaction object (`expressStackTransaction(req)`, a webhook handler's `context.tx`, …) was used
 * after the work it was lent for had ended: its route handler or webhook handler had returned (or thrown), and the
 * transaction was committed or rolled back, or is being. A statement sent now would run outside that transaction
 * (on a connection already back in the pool: autocommitted, or inside another request's transaction), so it is
 * refused before it reaches the database. A programming error: finish every write before the handler returns
 * (await it), or open a transaction of your own for work that runs later. HTTP: 500.
 * @see docs/your-stack.md "When payonce opens the transaction".
 */
export class TransactionEnded extends PayonceError {
  readonly code = 'TRANSACTION_ENDED';
  constructor() {
    super(
      'this one-commit transaction has ended (its handler returned or threw; it was committed or rolled back): ' +
        'a statement now would run outside it. Await every write before the handler returns',
    );
  }
}

/**
 * A transactional call (`runInTransaction`, `runInNewTransaction`) or a one-commit mode (intake endpoint
 * `transaction: true`, Idempotency-Key `transaction: true`) was asked of a store that cannot open or join a SQL
 * transaction (memory, Redis). The adapters throw it at construction, never at the first delivery. HTTP: 500.
 */
export class TransactionsUnsupported extends PayonceError {
  readonly code = 'TRANSACTIONS_UNSUPPORTED';
  constructor(storeName: string) {
    super(
      `store ${storeName} cannot open or join a SQL transaction, so the one-commit (transactional) mode is ` +
        'impossible on it; use a SQL store (SqliteStore, PostgresStore, MysqlStore) or the default mode',
    );
  }
}

/**
 * A handler claimed the key it is already running under (e.g. the webhook intake's handler calling
 * `guard.runInTransaction(tx, event.key, …)` with the event's own key). The outer claim is this same call chain,
 * not another worker, so the inner claim would otherwise wait on itself or be reported as `REQUEST_IN_PROGRESS`.
 * Nothing was claimed or written by the inner call. A programming error. HTTP: 500.
 * Fix: use the outer claim (the intake's one-commit mode gives the handler the transaction), or a different key.
 */
export class NestedClaim extends PayonceError {
  readonly code = 'NESTED_CLAIM';
  readonly key: RequestKey;
  constructor(key: RequestKey) {
    super(
      `receipt ${key.toString()} is already claimed by the handler that is running: a nested claim of the held key ` +
        'waits on itself; use the outer claim (one-commit mode gives the handler the transaction) or another key',
    );
    this.key = key;
  }
}

/**
 * A stored receipt is not one the guard could have written: the caller supplied a payload fingerprint, but the
 * receipt's stored fingerprint is missing (NULL) or empty, although every claim made with a fingerprint stores it.
 * The row was altered outside payonce (a manual UPDATE, a restore, a bad migration) or the key was first claimed
 * by code that sent no fingerprint. Nothing is replayed and nothing is run: a replay could answer a different
 * request, a mismatch would blame the caller. Repair or delete the receipt. HTTP: 500.
 * @see docs/design.md §3; issue 11 item 4.
 */
export class ReceiptCorrupted extends PayonceError {
  readonly code = 'RECEIPT_CORRUPTED';
  readonly key: RequestKey;
  /** What is wrong with the stored receipt: its fingerprint is `missing` (NULL) or `empty`. */
  readonly problem: 'fingerprint-missing' | 'fingerprint-empty';
  constructor(key: RequestKey, problem: 'fingerprint-missing' | 'fingerprint-empty') {
    const what = problem === 'fingerprint-missing' ? 'has no stored fingerprint' : 'has an empty stored fingerprint';
    super(`receipt ${key.toString()} ${what} although the caller supplies one; repair or delete the receipt`);
    this.key = key;
    this.problem = problem;
  }
}
