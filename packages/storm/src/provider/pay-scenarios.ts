import type { PaySteps } from '@payonce/sandbox/click';
import type { BaseStormContext } from './base-storm-context.js';
import type { ProviderScenario } from './provider-scenario.js';

/** The faults every sandbox payer (Payme's, Click's, Uzum's) injects under the same names. */
export interface CommonPayFaults {
  readonly lostAnswer?: boolean;
  readonly timeout?: boolean;
  readonly duplicate?: number;
  readonly parallel?: number;
}

/** A context whose scenario pays orders through the provider's sandbox payer. */
export interface PayingContext<R, O, P> extends BaseStormContext<R> {
  newOrder(): Promise<O>;
  payer(): { pay(order: O, faults?: CommonPayFaults, steps?: PaySteps): Promise<P> };
}

/** How a provider's payments read: whether one charged, its text, the words of the messages. */
export interface PayWords<P> {
  /** `transaction`, `payment`. */
  readonly noun: string;
  /** `performed`, `completed`, `confirmed`. */
  readonly charged: string;
  isCharged(result: P): boolean;
  describe(result: P): string;
}

/** The scenario's number, name, level and criterion (what docs/storm.md lists). */
export type ScenarioText = Omit<ProviderScenario<unknown, unknown>, 'run' | 'alone'>;

/** Records a failure unless the payment charged (`what: expected performed, got …`). */
export function expectCharged<R, P>(ctx: BaseStormContext<R>, words: PayWords<P>, result: P, what: string): boolean {
  return ctx.expect(words.isCharged(result), `${what}: expected ${words.charged}, got ${words.describe(result)}`);
}

/**
 * A rendezvous of `parties` payers: each gets a function that marks it arrived and resolves once every party has
 * (called a second time, it only waits). A payer refused before its first step ended arrives when it finishes, so
 * the other is never held for a step that will not come.
 */
function lineUp(parties: number): () => () => Promise<void> {
  let waiting = parties;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    let arrived = false;
    return () => {
      if (!arrived) {
        arrived = true;
        waiting -= 1;
        if (waiting === 0) open();
      }
      return opened;
    };
  };
}

/**
 * The double-pay scenario of any provider: two payers pay one order at once, then a third after; exactly one
 * charges, every other is `refused` (the provider's documented refusals, `refusal.text` in the message).
 */
export function doublePayScenario<R, O, P, Ctx extends PayingContext<R, O, P>>(
  text: ScenarioText,
  words: PayWords<P>,
  refusal: { readonly accepts: (result: P) => boolean; readonly text: string },
): ProviderScenario<Ctx, R> {
  return {
    ...text,
    async run(ctx) {
      const order = await ctx.newOrder();
      // Two tabs at once: both first steps answered before either payment completes, whatever the host's timing
      // (left to the scheduler, a loaded host could finish one payment before the other began, and a shop that
      // marks orders paid at the first step passed).
      const rendezvous = lineUp(2);
      const payAsTab = (party: () => Promise<void>) =>
        ctx
          .payer()
          .pay(order, undefined, { afterFirstStep: party })
          .finally(() => void party());
      const [a, b] = await Promise.all([payAsTab(rendezvous()), payAsTab(rendezvous())]);
      const late = await ctx.payer().pay(order);
      const all = [a, b, late];
      ctx.note(`payments: ${all.map((r) => words.describe(r)).join('; ')}`);
      const charged = all.filter((r) => words.isCharged(r));
      ctx.expect(charged.length === 1, `${charged.length} of 3 ${words.noun}s ${words.charged}, expected exactly 1`);
      for (const r of all.filter((x) => !words.isCharged(x))) {
        ctx.expect(
          refusal.accepts(r),
          `a second ${words.noun} for a paid (or being paid) order: expected refused with ${refusal.text}, got ${words.describe(r)}`,
        );
      }
      return ctx.conclude();
    },
  };
}

/** A scenario paying one fresh order with `faults`: it must charge (`what` names the faults in the message). */
export function faultyPayScenario<R, O, P, Ctx extends PayingContext<R, O, P>>(
  text: ScenarioText,
  words: PayWords<P>,
  faults: CommonPayFaults,
  what: string,
): ProviderScenario<Ctx, R> {
  return {
    ...text,
    async run(ctx) {
      const result = await ctx.payer().pay(await ctx.newOrder(), faults);
      ctx.note(`payment: ${words.describe(result)}`);
      expectCharged(ctx, words, result, what);
      return ctx.conclude();
    },
  };
}

/** The lost-answer scenario: one order paid with every first answer lost, another with every first call timed out. */
export function lostAnswerScenario<R, O, P, Ctx extends PayingContext<R, O, P>>(
  text: ScenarioText,
  words: PayWords<P>,
): ProviderScenario<Ctx, R> {
  return {
    ...text,
    async run(ctx) {
      const lost = await ctx.newOrder();
      const slow = await ctx.newOrder();
      const [a, b] = await Promise.all([
        ctx.payer().pay(lost, { lostAnswer: true }),
        ctx.payer().pay(slow, { timeout: true }),
      ]);
      ctx.note(`lost answers: ${words.describe(a)}; timeouts: ${words.describe(b)}`);
      expectCharged(ctx, words, a, 'paid with every first answer lost');
      expectCharged(ctx, words, b, 'paid with every first call timed out');
      return ctx.conclude();
    },
  };
}

/** Pays `order` once with a fresh payer, notes how it ended (`label: …`) and records a failure unless it charged. */
export async function payCharged<R, O, P>(
  ctx: PayingContext<R, O, P>,
  words: PayWords<P>,
  order: O,
  label: string,
  what: string,
): Promise<boolean> {
  const result = await ctx.payer().pay(order);
  ctx.note(`${label}: ${words.describe(result)}`);
  return expectCharged(ctx, words, result, what);
}
