import { importPeer } from '../../core/import-peer.js';
import { timerMs } from '../../core/options.js';
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
import { headersJson } from '../headers-json.js';
import type { PipeliningProbe } from './adaptive-pipelining.js';
import { CLAIM_FIELD, packClaim, packCompletion, parseClaim, TRACE_FIELD } from './receipt-fields.js';
import { receiptOfReply } from './receipt-of-reply.js';
import { countAbandonedClaims } from './redis-abandoned-count.js';
import { bodyArg, integerReply, msText } from './redis-args.js';
import { commands } from './redis-commands.js';
import { heardChannel, RedisFinishListener } from './redis-finish-listener.js';
import { legacyFinishedByProviderKey, type RedisKeys, receiptIdOf, redisKeys } from './redis-keys.js';
import type { RedisLike } from './redis-like.js';
import { RedisPurge } from './redis-purge.js';
import type { RedisScript, ScriptArg } from './redis-script.js';
import { type RedisStoreOptions, resolveRedisStoreOptions } from './redis-store-options.js';
import { completeScript } from './scripts/complete.js';
import { failScript } from './scripts/fail.js';
import { flagWaiterScript } from './scripts/flag-waiter.js';
import { recordTraceScript } from './scripts/record-trace.js';
import { renewScript } from './scripts/renew.js';
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

/**
 * Receipts in Redis (ioredis), shared by every process that uses the same server and prefix. The claim runs
 * without Lua: one `HSETNX` of the claim field, so it creates the receipt only if absent. Every other step is one
 * Lua script, so each is atomic: the completion writes its field only while the claim is held at its attempt
 * (fencing, scripts/complete.ts), takeover is a compare-and-set on (state, attempts), fail is fenced by attempt, and
 * purge walks the receipts with `SCAN` and deletes each page by script.
 *
 * Layout (see `redisKeys`, receipt-fields.ts): a hash `<prefix>{receipts}:r:<n>:<provider>:<externalId>` per receipt
 * whose `status` field holds the claim (attempts, state, claimed_at, fingerprint), whose `d` field holds the
 * completion of the claim (finished_at, response status, headers JSON, body bytes),
 * `e` the error of a failed claim, `w` the flag of a waiting duplicate. Receipts of the previous layout (one field
 * per column, finished-at sorted sets) are read, replayed, retried (moved to this layout) and purged; complete and
 * fail of a claim made in that layout answer false. All keys share the hash tag `{receipts}`, so with Redis Cluster
 * every script stays on one slot (and all of one store's receipts live on one shard). Response bodies are sent and
 * read as raw bytes and replay byte for byte, whatever their encoding or size; key parts compare byte for byte.
 *
 * With the `pipelining` option, commands of concurrent calls made in one tick of the event loop leave in one socket
 * write (`TickPipeline`), each with its own reply: Redis runs the commands of one connection in the order sent;
 * with `'auto'` only while that measures faster (`AdaptivePipelining`). It is off by default (docs/design.md §3
 * "Redis: pipelining, off by default or measured").
 *
 * Redis cannot join a SQL transaction: `supportsTransactions` is false and `runInTransaction` throws
 * `TransactionsUnsupported`. Durability is the server's: without AOF/RDB persistence a Redis restart forgets
 * every receipt, and a later delivery runs the handler again.
 *
 * @see docs/design.md §3 "Claim", "Redis: the receipt hash"; STYLE §2, §4.
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
  /** The announce command and channel of a finish a duplicate waits for (`['', '']` when `notify` is `off`). */
  private readonly announce: readonly [string, string];
  private readonly listener: RedisFinishListener | null;
  /** Groups the commands of one tick into one socket write (always, or as measured); `null` when `pipelining` is off. */
  private readonly pipeline: TickPipeline | null;
  private readonly purge: RedisPurge;
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
    const sharded = resolved.notify === 'spublish';
    const clientPrefix = this.client.options?.keyPrefix ?? '';
    // The script publishes to the name the subscriber hears.
    const heard = heardChannel(this.keys.finishedChannel, sharded, clientPrefix);
    this.announce = [command, command === '' ? '' : heard];
    this.listener =
      resolved.subscriber === null
        ? null
        : new RedisFinishListener(resolved.subscriber, this.keys.finishedChannel, sharded, clientPrefix);
    const client = this.client;
    this.pipeline =
      resolved.pipelining === false
        ? null
        : new TickPipeline(() => socketsOf(client), resolved.pipelining === true ? null : resolved.pipelining);
    this.purge = new RedisPurge(client, this.keys, (run) => this.#held(run));
    const listener = this.listener;
    if (listener) this.watchReceipt = (key) => this.#watch(listener, key);
  }

  /**
   * Subscribes (the listener resolves once the subscription is active), THEN sets the receipt's waiter flag, and
   * only then lets the guard re-read the receipt. A completer writes its completion before it reads the flag, so
   * either it sees the flag and announces (to a subscribed waiter), or the flag came after the completion and the
   * waiter's re-read sees the completion: no finish is missed. fail.ts reads the flag inside its script.
   */
  async #watch(listener: RedisFinishListener, key: RequestKey): Promise<ReceiptWatch> {
    const id = receiptIdOf(key);
    const watch = await listener.watch(id);
    try {
      await this.send(flagWaiterScript, [this.keys.receiptBase + id], []);
    } catch (error) {
      watch.close();
      throw error;
    }
    return watch;
  }

  /**
   * A store on a new ioredis connection to `url` (`redis://[user:password@]host:port/db`, `rediss://…`) that
   * the store owns: `close()` quits it. ioredis is loaded on first use (an optional peer dependency). Resolves
   * once Redis answers; every later wait is bounded by `timeoutMs`: there is no offline queue, so while Redis is
   * down each command fails at once (the guard answers `StoreUnavailable`, HTTP 503) instead of waiting through
   * ever longer reconnect back-offs, and ioredis keeps reconnecting in the background (at most 1 s apart). A command
   * in flight when the connection drops fails too and is never sent again (ioredis would resend it after the
   * reconnect, although it may have run: a resent claim or completion answers for the first one wrongly). A client
   * given to `new RedisStore` should be made with the same `maxRetriesPerRequest: 0` and
   * `autoResendUnfulfilledCommands: false`.
   * @throws {InvalidOption} for a bad `prefix` or `timeoutMs`.
   * @throws {MissingPeer} if ioredis is not installed.
   * @throws {Error} if Redis does not answer within `timeoutMs` (nothing is left open).
   * @example const store = await RedisStore.connect('redis://127.0.0.1:6379', { prefix: 'shop:' });
   */
  static async connect(url: string, options: RedisConnectOptions = {}): Promise<RedisStore> {
    const { timeoutMs = DEFAULT_TIMEOUT_MS, ...storeOptions } = options;
    timerMs('timeoutMs', timeoutMs);
    const { Redis } = await importPeer('ioredis', 'RedisStore', () => import('ioredis'));
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      // A command in flight when the connection drops may have run on the server with its reply lost: it fails
      // (StoreUnavailable, "nothing is known to have been recorded") instead of being sent again after the
      // reconnect, where a second HSETNX or completion would answer for the first (the caller's own claim read as
      // someone else's `RequestInProgress`, its recorded completion as `ClaimLost`).
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
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
   * stored one. One `HSETNX` of the claim field (receipt-fields.ts), so 50 parallel claims on any number of
   * connections insert exactly once; a duplicate reads the receipt with one `HGETALL` more.
   * @throws the driver's error (connection lost, `WRONGTYPE` on a foreign key); the guard wraps it.
   * @see `Store.insertClaim`.
   */
  async insertClaim({ key, nowMs, fingerprint }: InsertClaimRequest): Promise<InsertClaimResult> {
    const id = receiptIdOf(key);
    const hash = this.keys.receiptBase + id;
    // A receipt purged between our HSETNX and HGETALL is gone: claim again (a bounded number of times).
    for (let round = 0; round < 3; round++) {
      this.pipeline?.hold();
      const written = integerReply(
        await commands.hsetnx(this.client, hash, CLAIM_FIELD, packClaim(1, nowMs, fingerprint)),
      );
      if (written === 1) {
        return { inserted: true, receipt: firstClaimReceipt(key, nowMs, fingerprint) };
      }
      if (written !== 0) throw new Error(`redis: HSETNX on ${key.toString()} answered neither 0 nor 1`);
      const existing = await this.find(key);
      if (existing !== null) return { inserted: false, receipt: existing };
    }
    throw new Error(`redis: the receipt of ${key.toString()} kept vanishing between claim and read`);
  }

  /**
   * Compare-and-set on (status, attempts) for a retry or a stale takeover; `null` if the receipt changed
   * first or is `completed`. @see `Store.takeover`; scripts/takeover.ts.
   */
  async takeover({ key, expectedStatus, expectedAttempts, nowMs }: TakeoverRequest): Promise<Receipt | null> {
    const id = receiptIdOf(key);
    const reply = await this.send(
      takeoverScript,
      [this.keys.receiptBase + id, this.keys.legacyFinished, legacyFinishedByProviderKey(this.keys, key.provider)],
      [expectedStatus, expectedAttempts, msText(nowMs), id],
    );
    if (reply === null) return null;
    if (!Buffer.isBuffer(reply)) throw new Error(`redis: takeover of ${key.toString()} answered ${typeof reply}`);
    const claim = parseClaim(reply.toString('utf8'));
    return Object.freeze({
      key,
      status: 'processing',
      attempts: claim.attempts,
      claimedAtMs: claim.claimedAtMs,
      finishedAtMs: null,
      fingerprint: claim.fingerprint,
      response: null,
      error: null,
    });
  }

  /**
   * Stores `response` (body as raw bytes) if the claim at `attempt` still holds; false, changing nothing, if it was
   * lost. One small script (HMGET, HSETNX; an announcement only when a duplicate waits).
   * @see `Store.complete`; scripts/complete.ts.
   */
  async complete(request: FinishRequest & { readonly response: StoredResponse }): Promise<boolean> {
    const { key, attempt, nowMs, response } = request;
    const id = receiptIdOf(key);
    const value = packCompletion(nowMs, response.status, headersJson(response.headers), bodyArg(response.body));
    const [command, channel] = this.announce;
    const reply = await this.send(completeScript, [this.keys.receiptBase + id], [attempt, value, command, channel, id]);
    return integerReply(reply) === 1;
  }

  /**
   * The heartbeat: sets the claim's claimed_at to `nowMs` if the claim at `attempt` is still held and not completed;
   * false if it was lost. One small script. @see `Store.renewClaim`; scripts/renew.ts.
   */
  async renewClaim({ key, attempt, nowMs }: FinishRequest): Promise<boolean> {
    const reply = await this.send(renewScript, [this.receiptKey(key)], [attempt, msText(nowMs)]);
    return integerReply(reply) === 1;
  }

  /** Marks the receipt `failed` with `error` if the claim at `attempt` still holds; false if fenced. @see scripts/fail.ts */
  async fail({ key, attempt, nowMs, error }: FinishRequest & { readonly error: string }): Promise<boolean> {
    const id = receiptIdOf(key);
    const reply = await this.send(
      failScript,
      [this.keys.receiptBase + id],
      [attempt, msText(nowMs), error, ...this.announce, id],
    );
    return integerReply(reply) === 1;
  }

  /** See `Store.recordReceiptTrace`: the receipt hash's `t` field, set once (scripts/record-trace.ts). */
  async recordReceiptTrace(key: RequestKey, traceContext: string): Promise<void> {
    await this.send(recordTraceScript, [this.receiptKey(key)], [traceContext]);
  }

  /** See `Store.receiptTraceOf`: the receipt hash's `t` field (one `HGET`). */
  async receiptTraceOf(key: RequestKey): Promise<string | null> {
    this.pipeline?.hold();
    const reply = await this.client.callBuffer('HGET', this.receiptKey(key), TRACE_FIELD);
    return reply === null || reply === undefined ? null : Buffer.from(reply as Uint8Array).toString('utf8');
  }

  /** The stored receipt or `null` (one `HGETALL`); the body is a fresh `Uint8Array` copy. */
  async find(key: RequestKey): Promise<Receipt | null> {
    this.pipeline?.hold();
    return receiptOfReply(key, await commands.hgetall(this.client, this.receiptKey(key)));
  }

  /**
   * Deletes at most `limit` (floored; below 1 deletes nothing) finished receipts with `finishedAtMs <
   * beforeMs` and abandoned claims (held, not completed, last heartbeat before `abandonedBeforeMs`); with `provider`, only that provider's receipts are looked at. In no
   * particular order: the receipts are found by `SCAN`, and consecutive batches with the same arguments continue
   * one walk (`RedisPurge`). @see `Store.purgeBatch`; scripts/purge-batch.ts.
   */
  async purgeBatch(beforeMs: number, limit: number, provider?: string, abandonedBeforeMs?: number): Promise<number> {
    const batch = Math.floor(limit);
    if (!(batch >= 1)) return 0;
    return this.purge.batch({ beforeMs, abandonedBeforeMs: abandonedBeforeMs ?? null }, batch, provider);
  }

  /**
   * How many claims are abandoned at `abandonedBeforeMs` (Unix epoch ms): held, not completed, last heartbeat before
   * it — what `purgeBatch` with that cut-off would delete. Walks every receipt with `SCAN` (every master of a
   * Cluster) and counts each page by script; costs a walk over the server's key table, like a purge.
   * @throws the driver's error (connection down, command timeout). @see `Store.countAbandoned`.
   */
  countAbandoned(abandonedBeforeMs: number): Promise<number> {
    return countAbandonedClaims(this.client, this.keys, (run) => this.#held(run), abandonedBeforeMs);
  }

  /**
   * With `pipelining: 'auto'` (or an `AdaptivePipelining`): the last probe's pair ratios (rate of sending corked ÷
   * not corked), the choice it made and whether its pairs still disagreed when it made it; `null` before the first
   * probe has ended or with any other setting. For logs and benchmarks.
   */
  get pipeliningProbe(): PipeliningProbe | null {
    return this.pipeline?.chooser?.lastProbe ?? null;
  }

  /** Runs `run` (one command or script) in this tick's pipeline when pipelining is on. */
  #held(run: () => Promise<unknown>): Promise<unknown> {
    this.pipeline?.hold();
    return run();
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
