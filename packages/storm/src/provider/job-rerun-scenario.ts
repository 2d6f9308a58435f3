import { rerunAfterFulfilment } from './base-storm-context.js';
import type { OrderCounts } from './order-rules.js';
import { type PayingContext, type PayWords, payCharged } from './pay-scenarios.js';
import type { ProviderScenario } from './provider-scenario.js';

/** A paying context whose target reads orders by `Ref` and may re-run a fulfilment job. */
export interface RerunContext<R, O, P, Ref> extends PayingContext<R, O, P> {
  readonly target: {
    readOrder(ref: Ref): Promise<OrderCounts>;
    rerunFulfilment?(ref: Ref): Promise<{ note: string }>;
    readonly missing?: Readonly<{ rerun?: string }>;
  };
}

/**
 * The job re-run scenario (number `id`) of any provider: skipped without the target's `rerunFulfilment` (`missing.rerun` says
 * why); else a fresh order is paid, fulfilled, and its fulfilment job run again; the conclusion wants still one
 * fulfilment. `refOf` names the order as the target reads it (an account, a `merchant_trans_id`, `params`).
 */
export function jobRerunScenario<R, O, P, Ref, Ctx extends RerunContext<R, O, P, Ref>>(
  id: number,
  words: PayWords<P>,
  refOf: (order: O) => Ref,
): ProviderScenario<Ctx, R> {
  return {
    id,
    name: 'job re-run does not re-fulfil',
    defends: 'repeated business effect',
    criterion: `after the order is ${words.charged} and fulfilled, its fulfilment job is run again: still one fulfilment`,
    run(ctx) {
      const rerun = ctx.target.rerunFulfilment?.bind(ctx.target);
      return rerunAfterFulfilment(ctx, {
        rerun: rerun === undefined ? undefined : (order: O) => rerun(refOf(order)),
        missing: ctx.target.missing?.rerun,
        newOrder: () => ctx.newOrder(),
        read: (order) => ctx.target.readOrder(refOf(order)),
        pay: (order) => payCharged(ctx, words, order, 'payment', 'the payment to fulfil'),
      });
    },
  };
}
