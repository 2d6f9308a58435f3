import type { SandboxUpdate } from '@payonce/sandbox/telegram';
import { callDuringCrash, crashOf } from '../provider/crash-steps.js';
import { jobRerunScenario } from '../provider/job-rerun-scenario.js';
import { expectCharged } from '../provider/pay-scenarios.js';
import type { TelegramScenario, TelegramStormOrder } from './telegram-scenario.js';
import { statusText, TELEGRAM_PAY_WORDS } from './telegram-steps.js';

/** Telegram storm scenario 7: the fulfilment job run again. */
export const telegramJobRerun: TelegramScenario = jobRerunScenario(
  7,
  TELEGRAM_PAY_WORDS,
  (order: TelegramStormOrder) => order.orderId,
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isPayment = (update: SandboxUpdate) =>
  (update.message as { successful_payment?: unknown } | undefined)?.successful_payment !== undefined;

/** Telegram storm scenario 8: the bot killed while it handles the successful_payment. */
export const telegramCrashMidUpdate: TelegramScenario = {
  id: 8,
  name: 'crash mid-update, then Telegram’s redelivery',
  defends: 'repeated business effect',
  criterion:
    'the bot process is killed (SIGKILL) while the successful_payment is delivered and restarted; Telegram ' +
    'redelivers until 200: one paid transition, one fulfilment',
  alone: true,
  async run(ctx) {
    const crash = crashOf(ctx.target);
    if (typeof crash === 'string') return ctx.skip(crash);
    let seen = '';
    const deliver = async (update: SandboxUpdate) => {
      if (!isPayment(update)) {
        await ctx.redeliver(update);
        return;
      }
      ctx.injected(1);
      const killed = await callDuringCrash(ctx, crash, () => ctx.post(update));
      if (killed === null) {
        seen = 'the crash failed';
        return;
      }
      const repeats = await ctx.redeliver(update);
      seen = `${killed.note}; sent with the kill: ${statusText([killed.first])}; redeliveries: ${statusText(repeats)}`;
    };
    const paid = await ctx.pay(await ctx.newOrder(), deliver);
    expectCharged(ctx, TELEGRAM_PAY_WORDS, paid, 'the payment delivered across the crash');
    while (seen === '' && ctx.timeLeftMs() > 0) await sleep(50);
    ctx.note(seen === '' ? 'the successful_payment was not delivered across a crash' : seen);
    return ctx.conclude();
  },
};
