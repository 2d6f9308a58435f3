import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import examples from '../../../fixtures/providers/telegram/examples/updates.json' with { type: 'json' };
import { InvalidOption } from '../../../packages/payonce/src/core/errors.js';
import { IdempotencyGuard } from '../../../packages/payonce/src/core/idempotency-guard.js';
import { telegramRedaction } from '../../../packages/payonce/src/providers/telegram/telegram-redaction.js';
import { TELEGRAM_SECRET_HEADER } from '../../../packages/payonce/src/providers/telegram/telegram-secret-token-scheme.js';
import {
  type TelegramUpdate,
  telegramUpdateKey,
} from '../../../packages/payonce/src/providers/telegram/telegram-update.js';
import { telegramWebhook } from '../../../packages/payonce/src/providers/telegram/telegram-webhook.js';
import type { SqlStore } from '../../../packages/payonce/src/stores/sql/sql-store.js';
import { createWebhookIntake } from '../../../packages/payonce/src/webhooks/intake.js';
import { MemoryDeliveryJournal } from '../../../packages/payonce/src/webhooks/journal/memory-delivery-journal.js';
import { createSqlBackend, type SqlBackend, sqlDialectsFromEnv } from '../../outbox/sql-backends.js';
import { FRAMEWORKS, postBytes, startWebhookApp, type WebhookApp } from '../../webhooks/support/webhook-apps.js';
import { messageUpdate } from './fake-bot-api.js';
import { createEffectsTable, effectsOf, writeEffect } from './telegram-support.js';

const BOT_ID = '123456';
const SECRET = 'placeholder_secret-Token_1';

it('refuses secret tokens setWebhook would refuse, and a bot id that is not one', () => {
  expect(() => telegramWebhook({ botId: BOT_ID, secretTokens: 'has space' })).toThrow(InvalidOption);
  expect(() => telegramWebhook({ botId: BOT_ID, secretTokens: 'x'.repeat(257) })).toThrow(InvalidOption);
  expect(() => telegramWebhook({ botId: BOT_ID, secretTokens: [] })).toThrow(InvalidOption);
  expect(() => telegramWebhook({ botId: '123456:SECRET', secretTokens: SECRET })).toThrow(InvalidOption);
});

for (const dialect of sqlDialectsFromEnv().filter((d) => d !== 'mysql')) {
  describe(`${dialect}: Telegram webhook through the one-commit intake`, () => {
    let backend: SqlBackend;
    let store: SqlStore<unknown>;
    let guard: IdempotencyGuard<SqlStore<unknown>>;
    const journal = new MemoryDeliveryJournal();
    const failOnce = new Set<number>();
    const runs = new Map<number, number>();
    const apps = new Map<string, WebhookApp>();
    beforeAll(async () => {
      backend = await createSqlBackend(dialect);
      store = await backend.open();
      await createEffectsTable(store);
      guard = new IdempotencyGuard(store);
      const intake = createWebhookIntake({
        guard,
        journal,
        redaction: telegramRedaction(),
        endpoints: {
          telegram: {
            ...telegramWebhook({ botId: BOT_ID, secretTokens: ['rotated_new_token', SECRET] }),
            transaction: true,
            handler: async (event, { tx }) => {
              const update = event.payload as TelegramUpdate;
              runs.set(update.update_id, (runs.get(update.update_id) ?? 0) + 1);
              await writeEffect(tx, update, 'webhook');
              if (failOnce.delete(update.update_id)) throw new Error('the business step failed after its write');
            },
          },
        },
      });
      for (const framework of FRAMEWORKS) apps.set(framework, await startWebhookApp(framework, intake));
    }, 60_000);
    afterAll(async () => {
      for (const app of apps.values()) await app.close();
      await backend?.drop();
    });

    const deliver = (framework: string, update: unknown, secret: string | null = SECRET) =>
      postBytes(`${apps.get(framework)?.url}/webhooks/telegram`, JSON.stringify(update), {
        'content-type': 'application/json',
        ...(secret === null ? {} : { [TELEGRAM_SECRET_HEADER]: secret }),
      });
    const effects = async (id: number) => (await effectsOf(store)).get(id) ?? 0;

    it.each(FRAMEWORKS)(
      '%s: a good secret token applies the update once; a repeat is answered without the handler',
      async (framework) => {
        const update = messageUpdate();
        const first = await deliver(framework, update);
        expect([first.status, first.text]).toEqual([200, '{"received":true}']);
        const repeat = await deliver(framework, update);
        expect(repeat.status).toBe(200);
        expect(repeat.bytes).toEqual(first.bytes);
        expect(runs.get(update.update_id)).toBe(1);
        expect(await effects(update.update_id)).toBe(1);
        expect((await guard.find(telegramUpdateKey(BOT_ID, update.update_id)))?.status).toBe('completed');
      },
    );

    it.each(FRAMEWORKS)(
      '%s: a wrong or missing secret token is 401, before any receipt or handler',
      async (framework) => {
        const update = messageUpdate();
        for (const secret of ['wrong_token', null, `${SECRET}x`]) {
          const refused = await deliver(framework, update, secret);
          expect(refused.status).toBe(401);
        }
        expect(runs.get(update.update_id)).toBeUndefined();
        expect(await guard.find(telegramUpdateKey(BOT_ID, update.update_id))).toBeNull();
      },
    );

    it.each(FRAMEWORKS)(
      '%s: a failing handler answers 5xx and keeps nothing; the redelivery applies it once',
      async (framework) => {
        const update = messageUpdate();
        failOnce.add(update.update_id);
        const failed = await deliver(framework, update);
        expect(failed.status).toBeGreaterThanOrEqual(500);
        expect(await effects(update.update_id)).toBe(0);
        expect(await guard.find(telegramUpdateKey(BOT_ID, update.update_id))).toBeNull();
        const redelivered = await deliver(framework, update);
        expect(redelivered.status).toBe(200);
        expect(await deliver(framework, update)).toMatchObject({ status: 200 });
        expect(await effects(update.update_id)).toBe(1);
      },
    );

    it('journals updates with names, usernames, phones, e-mails and order_info redacted; ids stay readable', async () => {
      const u = examples.updates;
      const sent = [u.message, u.contact, u.callback_query, u.pre_checkout_query, u.successful_payment].map(
        (update, i) => ({ ...update, update_id: 900_000_000 + i + (dialect === 'sqlite' ? 0 : 100) }),
      );
      for (const update of sent) expect((await deliver('hono', update)).status).toBe(200);
      const rows = journal.all().filter((r) => sent.some((s) => r.eventKey?.endsWith(`${BOT_ID}:${s.update_id}`)));
      expect(rows).toHaveLength(sent.length);
      const text = rows.map((r) => r.payload ?? '').join('\n');
      for (const secret of [
        '"Placeholder"',
        'Person',
        'placeholder_user',
        '+998901234567',
        '998901234567',
        'user@example.com',
        'Tashkent',
      ]) {
        expect(text).not.toContain(secret);
      }
      for (const id of ['700000001', '-1001234567890', 'pcq-placeholder-1', 'stxPlaceholderCharge1', 'order:42']) {
        expect(text).toContain(id);
      }
      const paid = rows.find((r) => r.eventKey?.endsWith(`:${sent[4]?.update_id}`));
      expect(paid).toMatchObject({ amountMinor: 250, currency: 'XTR', merchantReference: 'order:42' });
      expect(paid?.paymentId).toBe('stxPlaceholderCharge1');
    });

    it('refuses an authentic body without an integer update_id (400), without a receipt', async () => {
      const refused = await deliver('express', { message: { text: 'no id' } });
      expect(refused.status).toBe(400);
    });
  });
}
