import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import updates from '../../../fixtures/providers/telegram/examples/updates.json' with { type: 'json' };
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import {
  runBatch,
  type TelegramUpdateOutcome,
} from '../../../packages/payonce/src/providers/telegram/telegram-batch.js';
import { botIdOfToken } from '../../../packages/payonce/src/providers/telegram/telegram-bot-id.js';
import { telegramChatOf } from '../../../packages/payonce/src/providers/telegram/telegram-chat-of.js';
import { nextOffset } from '../../../packages/payonce/src/providers/telegram/telegram-offset.js';
import { TelegramPollLease } from '../../../packages/payonce/src/providers/telegram/telegram-poll-lease.js';
import { TelegramPoller } from '../../../packages/payonce/src/providers/telegram/telegram-poller.js';
import { telegramUpdateKey } from '../../../packages/payonce/src/providers/telegram/telegram-update.js';
import { MemoryStore } from '../../../packages/payonce/src/stores/memory/memory-store.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../../outbox/sql-backends.js';
import { FakeBotApi, messageUpdate, messageUpdates } from './fake-bot-api.js';
import { createEffectsTable, effectsOf, testPoller, until, writeEffect } from './telegram-support.js';

describe('pure parts', () => {
  it.each<[number | undefined, number[], number[], number | undefined]>([
    [undefined, [], [], undefined],
    [5, [], [], 5],
    [undefined, [7, 8, 9], [7, 8, 9], 10],
    [undefined, [9, 7, 8], [7, 9], 8],
    [undefined, [7, 8, 9], [], 7],
    [10, [7, 8], [7, 8], 10],
  ])('offset after %s with batch %j, committed %j → %s', (current, batch, committed, expected) => {
    expect(nextOffset(current, batch, new Set(committed))).toBe(expected);
  });

  it('finds the chat of each example update; ids are never read from names', () => {
    const u = updates.updates;
    expect(telegramChatOf(u.message)).toBe('700000001');
    expect(telegramChatOf(u.callback_query)).toBe('-1001234567890');
    expect(telegramChatOf(u.pre_checkout_query)).toBe('700000001');
    expect(telegramChatOf({ update_id: 1, poll: { id: 'p' } })).toBeNull();
  });

  it('takes the bot id from the token and never echoes the token in an error', () => {
    expect(botIdOfToken('123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11')).toBe('123456');
    const error = (() => {
      try {
        botIdOfToken('abc:SECRETPART');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(InvalidOption);
    expect(error?.message).not.toContain('SECRETPART');
  });

  it('per-chat lanes: a failed update holds back its chat only; update order stops the whole batch', async () => {
    const a1 = messageUpdate(1, 1);
    const b2 = messageUpdate(2, 2);
    const a3 = messageUpdate(1, 3);
    const b4 = messageUpdate(2, 4);
    const apply = async (u: { update_id: number }): Promise<TelegramUpdateOutcome> =>
      u.update_id === 1 ? 'failed' : 'applied';
    const byChat = await runBatch(
      [b4, a3, b2, a1, a1],
      { ordering: 'chat', concurrency: 4, chatOf: telegramChatOf },
      apply,
    );
    expect(Object.fromEntries(byChat)).toEqual({ 1: 'failed', 2: 'applied', 3: 'skipped', 4: 'applied' });
    const byUpdate = await runBatch(
      [a1, b2, a3],
      { ordering: 'update', concurrency: 4, chatOf: telegramChatOf },
      apply,
    );
    expect(Object.fromEntries(byUpdate)).toEqual({ 1: 'failed', 2: 'skipped', 3: 'skipped' });
  });

  it('refuses bad options once, at construction', () => {
    const guard = new IdempotencyGuard(new MemoryStore());
    const base = { guard, token: '1:x', handler: () => {} };
    expect(() => new TelegramPoller({ ...base, limit: 101 })).toThrow(InvalidOption);
    expect(() => new TelegramPoller({ ...base, token: 'nope' })).toThrow(InvalidOption);
    expect(() => new TelegramPoller({ ...base, ordering: 'random' as never })).toThrow(InvalidOption);
    expect(() => new TelegramPoller({ ...base, transaction: true })).toThrow(/transaction/i);
  });
});

// MariaDB passes too (PAYONCE_TELEGRAM_MYSQL=1); it is left out by default to keep `npm test` within its budget.
for (const dialect of sqlDialectsFromEnv().filter((d) => d !== 'mysql' || process.env.PAYONCE_TELEGRAM_MYSQL)) {
  describe(`${dialect}: TelegramPoller`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let api: FakeBotApi;
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await createEffectsTable(store);
      api = await FakeBotApi.start();
    }, 60_000);
    /** Every poller a test starts, stopped after it even when it fails (a running one would hold the lease). */
    const started: { stop(): Promise<void> }[] = [];
    const track = (...args: Parameters<typeof testPoller>) => {
      const made = testPoller(...args);
      started.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(started.splice(0).map((p) => p.stop()));
    });
    afterAll(async () => {
      await api?.close();
      await backend?.drop();
    });

    const appliedOnce = async (ids: readonly number[]) => {
      const effects = await effectsOf(store);
      return ids.every((id) => effects.get(id) === 1);
    };

    it('applies duplicates and re-served updates once, and confirms the offset past them', async () => {
      const batch = messageUpdates(5);
      api.push(...batch, batch[2]!, batch[0]!);
      let runs = 0;
      const poller = track(store, api, 'a', {
        handler: async (update, { tx }) => {
          runs += 1;
          await writeEffect(tx, update, 'a');
        },
      });
      poller.start();
      const ids = batch.map((u) => u.update_id);
      await until(() => appliedOnce(ids), 'five effects');
      await until(() => api.pending().length === 0, 'the offset to pass the batch');
      await poller.stop();
      expect(runs).toBe(5);
      // Telegram serves the same updates again (an answer to getUpdates was lost): duplicates, never re-applied.
      api.push(...batch);
      const again = track(store, api, 'b');
      const outcomes: string[] = [];
      again.on('update', (e) => outcomes.push(e.outcome));
      again.start();
      await until(() => outcomes.length >= 5 && api.pending().length === 0, 're-served batch');
      await again.stop();
      expect(new Set(outcomes)).toEqual(new Set(['duplicate']));
      expect(await appliedOnce(ids)).toBe(true);
    });

    it('never confirms an offset past an update whose handler failed; the retry applies it once', async () => {
      const batch = messageUpdates(3);
      const failing = batch[1]!.update_id;
      let failures = 1;
      api.push(...batch);
      const poller = track(store, api, 'f', {
        handler: async (update, { tx }) => {
          await writeEffect(tx, update, 'f');
          if (update.update_id === failing && failures-- > 0) throw new Error('the business step failed');
        },
      });
      const callsBefore = api.calls.length;
      poller.start();
      await until(() => appliedOnce(batch.map((u) => u.update_id)), 'three effects');
      await until(() => api.pending().length === 0, 'offset past the batch');
      await poller.stop();
      const offsets = api.calls.slice(callsBefore).map((c) => c.offset);
      // The first confirmation stops AT the failed update: it is served again, never forgotten before its commit.
      // (Offsets at or below the batch's first id are earlier tests' confirmations arriving late.)
      const firstConfirmed = offsets.find((o) => o !== undefined && o > batch[0]!.update_id);
      expect(firstConfirmed).toBe(failing);
      expect((await effectsOf(store)).get(failing)).toBe(1);
    });

    it('per-chat ordering: a chat waits for its previous update; other chats go on; no offset past the waiting one', async () => {
      const [a1, b1, a2] = [messageUpdate(1_001), messageUpdate(2_002), messageUpdate(1_001)];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const started: number[] = [];
      api.push(a1!, b1!, a2!);
      // The default mode (claim, handler, completion apart): no transaction stays open while an update waits, so
      // SQLite's single writer does not serialise the chats.
      const poller = track(store, api, 'c', {
        ordering: 'chat',
        transaction: false,
        handler: async (update) => {
          started.push(update.update_id);
          if (update.update_id === a1.update_id) await gate;
          await writeEffect(store.db, update, 'c');
        },
      });
      const callsBefore = api.calls.length;
      poller.start();
      await until(() => appliedOnce([b1.update_id]), "the other chat's update");
      expect(started).not.toContain(a2.update_id);
      expect(api.calls.slice(callsBefore).every((c) => c.offset === undefined || c.offset <= a1.update_id)).toBe(true);
      release();
      await until(() => appliedOnce([a1.update_id, a2.update_id]), 'the first chat in order');
      await poller.stop();
      expect(started.indexOf(a1.update_id)).toBeLessThan(started.indexOf(a2.update_id));
    });

    it('two pollers on one store: one polls; the other takes over after a clean stop and after a silent death', async () => {
      const one = track(store, api, 'one');
      const two = track(store, api, 'two');
      const conflicts: unknown[] = [];
      for (const p of [one, two]) p.on('poll-error', (e) => e.status === 409 && conflicts.push(e));
      const held = { one: false, two: false };
      one.on('lease', (e) => {
        held.one = e.held;
      });
      two.on('lease', (e) => {
        held.two = e.held;
      });
      one.start();
      await until(() => held.one, 'the first lease');
      two.start();
      const first = messageUpdates(3);
      api.push(...first);
      await until(() => appliedOnce(first.map((u) => u.update_id)), 'first batch');
      expect(held.two).toBe(false);
      await one.stop();
      await until(() => held.two, 'the takeover after a clean stop');
      const second = messageUpdates(2);
      api.push(...second);
      await until(() => appliedOnce(second.map((u) => u.update_id)), 'second batch');
      await two.stop();
      expect(conflicts).toEqual([]); // never two getUpdates at once

      // A holder that died: its lease row stays `processing` and is never renewed; a poller waits it out.
      const dead = new TelegramPollLease(store, '123456', 600);
      expect(await dead.acquire(Date.now())).toBe(true);
      const three = track(store, api, 'three');
      let took = false;
      three.on('lease', (e) => {
        took = e.held;
      });
      const callsBefore = api.calls.length;
      three.start();
      const third = messageUpdates(2);
      api.push(...third);
      await until(() => took, 'the takeover of a dead lease');
      await until(() => appliedOnce(third.map((u) => u.update_id)), 'third batch');
      await three.stop();
      expect(api.calls.length).toBeGreaterThan(callsBefore);
      expect(await dead.renew(Date.now())).toBe(false); // fenced: the dead holder cannot come back
    });

    it('honours 429 retry_after and goes on after 5xx and a 409 conflict', async () => {
      // Its own Bot API: a getUpdates of an earlier test's poller, aborted by its stop but already read by the shared
      // fake, would take the queued 429 there.
      const own = await FakeBotApi.start();
      try {
        const errors: { status: number | null; delayMs: number }[] = [];
        own.failNext(429, { retry_after: 1 });
        own.failNext(502);
        own.failNext(409);
        const poller = track(store, own, 'r');
        poller.on('poll-error', (e) => errors.push(e));
        poller.start();
        const batch = messageUpdates(2);
        own.push(...batch);
        await until(() => appliedOnce(batch.map((u) => u.update_id)), 'the batch after the errors');
        await poller.stop();
        expect(errors.map((e) => e.status)).toEqual([429, 502, 409]);
        expect(errors[0]?.delayMs).toBe(1_000);
      } finally {
        await own.close();
      }
    });

    it('a huge or zero retry_after never makes a busy loop: the pause fits a timer and is never 0', async () => {
      // Its own Bot API (a fetch answering one 429, then empty long polls), so no other call can take the 429.
      const firstThen429 = (retryAfter: number) => {
        let calls = 0;
        return async (_url: string, init: RequestInit): Promise<Response> => {
          calls += 1;
          const body =
            calls === 1
              ? {
                  ok: false,
                  error_code: 429,
                  description: 'Too Many Requests',
                  parameters: { retry_after: retryAfter },
                }
              : { ok: true, result: [] };
          if (calls > 1) {
            await new Promise((resolve) => {
              const timer = setTimeout(resolve, 50);
              init.signal?.addEventListener('abort', () => resolve(clearTimeout(timer)), { once: true });
            });
          }
          return new Response(JSON.stringify(body), { status: calls === 1 ? 429 : 200 });
        };
      };
      const delays = async (retryAfter: number) => {
        const errors: { status: number | null; delayMs: number }[] = [];
        const poller = track(store, api, `retry-${retryAfter}`, { fetch: firstThen429(retryAfter) });
        poller.on('poll-error', (e) => errors.push(e));
        poller.start();
        await until(() => errors.length > 0, 'the 429');
        await poller.stop(); // a long pause is cut short by the stop
        return errors[0];
      };
      expect(await delays(1e10)).toMatchObject({ status: 429, delayMs: 2 ** 31 - 1 });
      const zero = await delays(0);
      expect(zero?.status).toBe(429);
      expect(zero?.delayMs).toBeGreaterThan(0);
    });

    it('takes over an update half-done by a dead runner after its claim lease, and applies it once', async () => {
      const update = messageUpdate();
      const guardOptions = { leaseMs: 400 };
      const key = telegramUpdateKey('123456', update.update_id);
      await store.insertClaim({ key, nowMs: Date.now(), fingerprint: null }); // the dead runner's claim
      const outcomes: string[] = [];
      let takeover = false;
      const poller = track(
        store,
        api,
        'plain',
        {
          transaction: false,
          handler: async (u, { claim }) => {
            takeover = claim.takeover;
            await writeEffect(store.db, u, 'plain');
          },
        },
        guardOptions,
      );
      poller.on('update', (e) => e.updateId === update.update_id && outcomes.push(e.outcome));
      api.push(update);
      poller.start();
      await until(() => appliedOnce([update.update_id]), 'the takeover');
      await until(() => api.pending().length === 0, 'the offset');
      await poller.stop();
      expect(outcomes[0]).toBe('in-progress');
      expect(outcomes.at(-1)).toBe('applied');
      expect(takeover).toBe(true);
    });
  });
}
