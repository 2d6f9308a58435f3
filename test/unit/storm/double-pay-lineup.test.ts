import { describe, expect, it } from 'vitest';
import type { PaySteps } from '../../../packages/sandbox/src/acceptance/pay-steps.js';
import { doublePayScenario, type PayingContext } from '../../../packages/storm/src/provider/pay-scenarios.js';

type Result = { readonly failures: string[] };
type Paid = { readonly tab: number; readonly outcome: 'charged' | 'refused' };

/**
 * A provider whose payers take `delays[i]` ms before their first step (a loaded host's scheduling) and record every
 * step in `calls`; the shop marks the order paid at the first step (the broken variant), so a later first step is
 * refused with 'order not payable'.
 */
function context(delays: readonly number[], refuseFirstStepOf: number | null = null) {
  const calls: string[] = [];
  let paidAtFirstStep = false;
  let tabs = 0;
  const failures: string[] = [];
  const ctx: PayingContext<Result, string, Paid> = {
    timeLeftMs: () => 10_000,
    expect: (condition, reason) => {
      if (!condition) failures.push(reason);
      return condition;
    },
    note: () => {},
    conclude: async () => ({ failures }),
    skip: () => ({ failures: ['skipped'] }),
    newOrder: async () => 'order-1',
    payer: () => ({
      async pay(_order: string, _faults?: unknown, steps?: PaySteps): Promise<Paid> {
        const tab = tabs++;
        await new Promise((resolve) => setTimeout(resolve, delays[tab] ?? 0));
        calls.push(`first ${tab}`);
        if (paidAtFirstStep || tab === refuseFirstStepOf) return { tab, outcome: 'refused' };
        paidAtFirstStep = true;
        await steps?.afterFirstStep?.();
        calls.push(`complete ${tab}`);
        return { tab, outcome: 'charged' };
      },
    }),
  };
  return { ctx, calls, failures };
}

const scenario = doublePayScenario<Result, string, Paid, PayingContext<Result, string, Paid>>(
  { id: 1, name: 'double pay', defends: 'repeated payment attempt', criterion: 'one charge' },
  { noun: 'payment', charged: 'charged', isCharged: (r) => r.outcome === 'charged', describe: (r) => r.outcome },
  { accepts: () => false, text: 'the documented refusal' },
);

describe('the double-pay scenario lines the two tabs up', () => {
  it('answers both first steps before either payment completes, however late the second tab starts', async () => {
    const { ctx, calls } = context([0, 80]);
    await scenario.run(ctx);
    expect(calls.slice(0, 3)).toEqual(['first 0', 'first 1', 'complete 0']);
  });

  it('fails a shop that marks the order paid at the first step even when one tab would have finished first', async () => {
    const { ctx, failures } = context([0, 80]);
    await scenario.run(ctx);
    expect(failures.join('\n')).toMatch(/expected refused with the documented refusal, got refused/);
  });

  it('does not hold a tab for one refused before its first step ended', async () => {
    const { ctx, calls } = context([60, 0], 1);
    await scenario.run(ctx);
    expect(calls).toContain('complete 0');
  });
});
