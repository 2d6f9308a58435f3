import type { SandboxUpdate } from '@payonce/sandbox/telegram';
import { expectCharged } from '../provider/pay-scenarios.js';
import type { TelegramScenario } from './telegram-scenario.js';
import { deliveriesDone, statusText, TELEGRAM_PAY_WORDS, trackedDeliverer } from './telegram-steps.js';

const ACCEPTED = new Set([200, 409]);

/** Telegram storm scenario 1: every update of the payment ×5 at once, then ×5 one after the other. */
export const telegramRedelivered: TelegramScenario = {
  id: 1,
  name: 'update redelivered ×5 and in parallel',
  defends: 'repeated HTTP request',
  criterion:
    'the pre-checkout and the successful_payment each sent as 5 simultaneous copies, then 5 more one after the ' +
    'other: every copy answered 200 (or 409 while one is handled), one charge, one paid transition, one fulfilment',
  async run(ctx) {
    const statuses: (number | null)[] = [];
    const tracked = trackedDeliverer(async (update: SandboxUpdate) => {
      ctx.injected(9);
      statuses.push(...(await Promise.all(Array.from({ length: 5 }, () => ctx.post(update)))));
      for (let i = 0; i < 5; i += 1) statuses.push(await ctx.post(update));
      if (!statuses.slice(-5).some((s) => s === 200)) statuses.push(...(await ctx.redeliver(update)));
    });
    const order = await ctx.newOrder();
    const paid = await ctx.pay(order, tracked.deliver);
    await deliveriesDone(ctx, order, tracked);
    ctx.note(`payment: ${paid.outcome}; copies answered ${statusText(statuses)}`);
    expectCharged(ctx, TELEGRAM_PAY_WORDS, paid, 'paid with every update ×10');
    const odd = statuses.filter((s) => s === null || !ACCEPTED.has(s));
    ctx.expect(odd.length === 0, `a copy was answered ${statusText(odd)}, expected 200 or 409`);
    return ctx.conclude();
  },
};

/** Telegram storm scenario 2: the first delivery answered non-2xx (or its answer lost), then redelivered. */
export const telegramNon2xx: TelegramScenario = {
  id: 2,
  name: 'webhook answered non-2xx, then redelivered',
  defends: 'repeated HTTP request',
  criterion:
    'each update first sent with an outdated secret token (401) and once with its answer cut (Telegram timed ' +
    'out), then redelivered until 200: the 401 changes nothing, one charge, one paid transition, one fulfilment',
  async run(ctx) {
    const firsts: (number | null)[] = [];
    const tracked = trackedDeliverer(async (update: SandboxUpdate) => {
      ctx.injected(2);
      firsts.push(await ctx.post(update, { secretToken: 'outdated_storm_secret_token' }));
      await ctx.post(update, { cutAfterMs: 5 });
      await ctx.redeliver(update);
    });
    const order = await ctx.newOrder();
    const paid = await ctx.pay(order, tracked.deliver);
    await deliveriesDone(ctx, order, tracked);
    ctx.note(`payment: ${paid.outcome}; first deliveries answered ${statusText(firsts)}`);
    expectCharged(ctx, TELEGRAM_PAY_WORDS, paid, 'paid after non-2xx answers and redeliveries');
    ctx.expect(
      firsts.every((s) => s === 401),
      `an update with a wrong secret token was answered ${statusText(firsts)}, expected 401`,
    );
    return ctx.conclude();
  },
};
