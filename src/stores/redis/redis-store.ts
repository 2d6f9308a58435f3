import { isAscii } from 'node:buffer';
import { InvalidOption } from '../../core/errors.js';
import { firstClaimReceipt, type Receipt, type StoredResponse } from '../../core/receipt.js';
import type { RequestKey } from '../../core/request-key.js';
import type {
  FinishRequest,
  InsertClaimRequest,
  InsertClaimResult,
  ReceiptWatch,
  Store,
  TakeoverRequest,
} from '../../core/store.js';
import { importDriver } from '../driver-missing.js';
import { receiptOfReply } from './receipt-of-reply.js';
import { RedisFinishListener } from './redis-finish-listener.js';
import { finishedByProviderKey, type RedisKeys, receiptIdOf, redisKeys } from './redis-keys.js';
import type { RedisLike } from './redis-like.js';
import type { RedisScript, ScriptArg } from './redis-script.js';
import { type RedisStoreOptions, resolveRedisStoreOptions } from './redis-store-options.js';
import { completeScript } from './scripts/complete.js';
import { failScript } from './scripts/fail.js';
import { findScript } from './scripts/find.js';
import { insertClaimScript } from './scripts/insert-claim.js';
import { purgeBatchScript } from './scripts/purge-batch.js';
import { takeoverScript } from './scripts/takeover.js';
import { socketsOf, TickPipeline } from './tick-pipeline.js';

/** Options of `RedisStore.connect`: everything of `RedisStoreOptions` but the client, which it creates. */
export type RedisConnectOptions = Omit<RedisStoreOptions, 'client'> & {
  /**
   * The bound of every wait on Redis, in milliseconds: connecting (at start and on each reconnect) and each
   * command's answer (ioredis `connectTimeout`, `commandTimeout`). Positive integer. @default 2_000
   */
  readonly timeoutMs?: number;
};

const DEFAULT_TIMEOUT_MS = 2_000;

/** `host:port` of a Redis URL, for error messages (never the password). */
function endpointOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'the configured Redis';
  }
}

/** Unix epoch ms as the decimal text stored in the hash and used as a sorted-set score. */
const msText = (ms: number): string => String(ms);

/**
 * The body as a command argument. Pure ASCII (most JSON answers) goes as text: its UTF-8 encoding is the same bytes,
 * and a command of text arguments is encoded as one string instead of a list of pieces copied into a new Buffer.
 * Anything else goes as the raw bytes, so every body is stored byte for byte.
 */
const bodyArg = (body: Uint8Array): string | Buffer => {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes;
};

/**
 * An integer reply as a number, or `null` for any other reply. ioredis returns integers as numbers, but as
 * text when the client was built with `stringNumbers: true`.
 */
function integerReply(reply: unknown): number | null {
  if (typeof reply === 'number') return reply;
  const text = typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString('latin1') : null;
  return text !== null && /^-?\d+$/.test(text) ? Number(text) : null;
}

/**
 * Receipts in Redis (ioredis), shared by every process that uses the same server and prefix. Each step is
 * one Lua script, so it is atomic: the claim creates the hash only if absent, takeover is a compare-and-set
 * on (status, attempts), complete and fail are fenced by attempt, purge walks a finished-at index (of every
 * provider, or of the one provider it is scoped to).
 *
 * Layout (see `redisKeys`): a hash `<prefix>{receipts}:r:<n>:<provider>:<externalId>` per receipt with
 * fields `provider`, `external_id`, `status`, `attempts`, `claimed_at` and `finished_at` (Unix epoch ms,
 * UTC, decimal), `fingerprint`, `error`, `response_status`, `response_headers` (JSON object) and
 * `response_body` (raw bytes); a sorted set `<prefix>{receipts}:finished` of finished receipts scored by
 * `finished_at`; and one more per provider, `<prefix>{receipts}:finished:<provider>`, for purges scoped to that
 * provider. Receipts finished by a version without the per-provider sets are only in the first one: a scoped
 * purge does not see them, an unscoped one does. All keys share the hash tag `{receipts}`, so with Redis Cluster every script stays on one
 * slot (and all of one store's receipts live on one shard). Response bodies are sent and read as raw bytes
 * and replay byte for byte, whatever their encoding or size; key parts compare byte for byte.
 *
 * Commands of concurrent calls made in one tick of the event loop leave in one socket write (`TickPipeline`; the
 * `pipelining` option), each with its own reply: Redis runs each script atomically in the order sent.
 *
 * Redis cannot join a SQL transaction: `supportsTransactions` is false and `runInTransaction` throws
 * `TransactionsUnsupported`. Durability is the server's: without AOF/RDB persistence a Redis restart forgets
 * every receipt, and a later delivery runs the handler again.
 *
 * @see docs/design.md §3 (claim as one atomic statement: "SET NX / Lua"); STYLE §2, §4.
 * @example
 * import { Redis } from 'ioredis';
 * const guard = new IdempotencyGuard(new RedisStore({ client: new Redis(process.env.REDIS_URL!) }));
 */
export class RedisStore implements Store {
  readonly name = 'redis';
  readonly supportsTransactions = false;
  /** The key prefix in use (default `payonce:`). */
  readonly prefix: string;
  private readonly client: RedisLike;
  private readonly keys: RedisKeys;
  /** The announce command and channel the complete/fail scripts get (`['', '']` when `notify` is `off`). */
  private readonly announce: readonly [string, string];
  private readonly listener: RedisFinishListener | null;
  /** Groups the commands of one tick into one socket write; `null` when `pipelining` is off. */
  private readonly pipeline: TickPipeline | null;
  /**
   * Subscribes to the finish of `key` on this store's one subscriber connection (issue #15); present unless
   * `notify` is `off` or there is no way to make a subscriber. @see `Store.watchReceipt`.
   */
  readonly watchReceipt?: (key: RequestKey) => Promise<ReceiptWatch>;
  /** Closes the connection when this store created it (`connect`), else `null`. */
  #closeOwned: (() => Promise<void>) | null = null;

  /**
   * A store on a connection the caller owns and closes.
   * @throws {InvalidOption} for a client without `callBuffer` or a prefix containing `{` or `}`.
   */
  constructor(options: RedisStoreOptions) {
    const resolved = resolveRedisStoreOptions(options);
    this.client = resolved.client;
    this.prefix = resolved.prefix;
    this.keys = redisKeys(this.prefix);
    const command = resolved.notify === 'off' ? '' : resolved.notify.toUpperCase();
    this.announce = [command, command === '' ? '' : this.keys.finishedChannel];
    this.listener =
      resolved.subscriber === null
        ? null
        : new RedisFinishListener(resolved.subscriber, this.keys.finishedChannel, resolved.notify === 'spublish');
    const client = this.client;
    this.pipeline = resolved.pipelining ? new TickPipeline(() => socketsOf(client)) : null;
    const listener = this.listener;
    if (listener) this.watchReceipt = (key) => listener.watch(receiptIdOf(key));
  }

  /**
   * A store on a new ioredis connection to `url` (`redis://[user:password@]host:port/db`, `rediss://…`) that
   * the store owns: `close()` quits it. ioredis is loaded on first use (an optional peer dependency). Resolves
   * once Redis answers; every later wait is bounded by `timeoutMs`: there is no offline queue, so while Redis is
   * down each command fails at once (the guard answers `StoreUnavailable`, HTTP 503) instead of waiting through
   * ever longer reconnect back-offs, and ioredis keeps reconnecting in the background (at most 1 s apart).
   * @throws {InvalidOption} for a bad `prefix` or `timeoutMs`.
   * @throws {DriverMissing} if ioredis is not installed.
   * @throws {Error} if Redis does not answer within `timeoutMs` (nothing is left open).
   * @example const store = await RedisStore.connect('redis://127.0.0.1:6379', { prefix: 'shop:' });
   */
  static async connect(url: string, options: RedisConnectOptions = {}): Promise<RedisStore> {
    const { timeoutMs = DEFAULT_TIMEOUT_MS, ...storeOptions } = options;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      throw new InvalidOption('timeoutMs', `must be a positive integer, got ${String(timeoutMs)}`);
    }
    const { Redis } = await importDriver('RedisStore', 'ioredis', 'ioredis@6', () => import('ioredis'));
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      retryStrategy: (times: number) => Math.min(times * 100, 1_000),
    });
    // Connection errors reach the commands (StoreUnavailable); without a listener ioredis logs each one.
    client.on('error', () => {});
    let store: RedisStore;
    try {
      store = new RedisStore({ ...storeOptions, client });
      await RedisStore.#ready(client, timeoutMs, url);
    } catch (error) {
      client.disconnect();
      throw error;
    }
    store.#closeOwned = async () => {
      await client.quit().catch(() => client.disconnect());
    };
    return store;
  }

  static async #ready(client: { connect(): Promise<void> }, timeoutMs: number, url: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('no answer')), timeoutMs);
        }),
      ]);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Redis at ${endpointOf(url)} is unreachable (${reason}; waited up to ${timeoutMs} ms)`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends `PING` and resolves when Redis answers `PONG`: the health check of `/healthz`.
   * @throws the driver's error (connection down, command timeout on a store made by `connect`).
   */
  async ping(): Promise<void> {
    const reply = await this.client.callBuffer('PING');
    const text = Buffer.isBuffer(reply) ? reply.toString('latin1') : String(reply);
    if (text !== 'PONG') throw new Error(`redis: PING answered ${text}`);
  }

  /**
   * Disconnects the store's own subscriber (made for waiting duplicates) and quits the connection if this store
   * created it (`connect`); a caller's client is left open for its owner to close. Safe to call twice.
   */
  async close(): Promise<void> {
    await this.listener?.close();
    const close = this.#closeOwned;
    this.#closeOwned = null;
    if (close) await close();
  }

  /**
   * Creates the receipt (`processing`, attempt 1, `claimed_at = nowMs`) if the key has none, else returns the
   * stored one; one script, so 50 parallel claims on any number of connections insert exactly once.
   * @throws the driver's error (connection lost, `WRONGTYPE` on a foreign key); the guard wraps it.
   * @see `Store.insertClaim`; scripts/insert-claim.ts.
   */
  async insertClaim({ key, nowMs, fingerprint }: InsertClaimRequest): Promise<InsertClaimResult> {
    const args = [msText(nowMs), key.provider, key.externalId];
    if (fingerprint !== null) args.push(fingerprint);
    const reply = await this.send(insertClaimScript, [this.receiptKey(key)], args);
    if (integerReply(reply) === 1) {
      const receipt = firstClaimReceipt(key, nowMs, fingerprint);
      return { inserted: true, receipt };
    }
    const existing = receiptOfReply(key, reply);
    if (existing === null) throw new Error(`redis: insertClaim on ${key.toString()} returned neither 1 nor a receipt`);
    return { inserted: false, receipt: existing };
  }

  /**
   * Compare-and-set on (status, attempts) for a retry or a stale takeover; `null` if the receipt changed
   * first or is `completed`. @see `Store.takeover`; scripts/takeover.ts.
   */
  async takeover({ key, expectedStatus, expectedAttempts, nowMs }: TakeoverRequest): Promise<Receipt | null> {
    const reply = await this.send(
      takeoverScript,
      [this.receiptKey(key), this.keys.finished, finishedByProviderKey(this.keys, key.provider)],
      [expectedStatus, expectedAttempts, msText(nowMs), receiptIdOf(key)],
    );
    return reply === null ? null : receiptOfReply(key, reply);
  }

  /**
   * Stores `response` (body as raw bytes) if the claim at `attempt` still holds; false, changing nothing,
   * if it was taken over. @see `Store.complete`; scripts/complete.ts.
   */
  async complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean> {
    const { key, attempt, nowMs, response } = request;
    const reply = await this.send(
      completeScript,
      [this.receiptKey(key), this.keys.finished, finishedByProviderKey(this.keys, key.provider)],
      [
        attempt,
        msText(nowMs),
        receiptIdOf(key),
        response.status,
        JSON.stringify(response.headers),
        bodyArg(response.body),
        ...this.announce,
      ],
    );
    return integerReply(reply) === 1;
  }

  /** Marks the receipt `failed` with `error` if the claim at `attempt` still holds; false if fenced. @see scripts/fail.ts */
  async fail({ key, attempt, nowMs, error }: FinishRequest & { readonly error: string }): Promise<boolean> {
    const reply = await this.send(
      failScript,
      [this.receiptKey(key), this.keys.finished, finishedByProviderKey(this.keys, key.provider)],
      [attempt, msText(nowMs), receiptIdOf(key), error, ...this.announce],
    );
    return integerReply(reply) === 1;
  }

  /** The stored receipt or `null`; the body is a fresh `Uint8Array` copy. @see scripts/find.ts */
  async find(key: RequestKey): Promise<Receipt | null> {
    return receiptOfReply(key, await this.send(findScript, [this.receiptKey(key)], []));
  }

  /**
   * Deletes at most `limit` (floored; below 1 deletes nothing) finished receipts with `finishedAtMs <
   * beforeMs`, oldest first; never a `processing` one. Without `provider` it walks the finished index; with
   * it, that provider's finished index only, so other providers' receipts are neither deleted nor read.
   * Either way a deleted receipt leaves both indexes. One script per batch, so a large purge never blocks
   * Redis for long. @see `Store.purgeBatch`; scripts/purge-batch.ts.
   */
  async purgeBatch(beforeMs: number, limit: number, provider?: string): Promise<number> {
    const batch = Math.floor(limit);
    if (!(batch >= 1)) return 0;
    const walked = provider === undefined ? this.keys.finished : finishedByProviderKey(this.keys, provider);
    const reply = await this.send(
      purgeBatchScript,
      [walked, this.keys.receiptBase, this.keys.finished, this.keys.finishedByProviderBase],
      [msText(beforeMs), batch],
    );
    const deleted = integerReply(reply);
    if (deleted === null) throw new Error(`redis: purgeBatch returned ${typeof reply}`);
    return deleted;
  }

  /** Runs `script` on the store's connection, in this tick's pipeline when pipelining is on. */
  private send(script: RedisScript, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    this.pipeline?.hold();
    return script.run(this.client, keys, args);
  }

  private receiptKey(key: RequestKey): string {
    return this.keys.receiptBase + receiptIdOf(key);
  }
}
