import { errorText } from '../error-text.js';

/** What every provider storm context offers a scenario, whatever the provider: failures, notes, the deadline, the end. */
export interface BaseStormContext<R> {
  /** Milliseconds left before the scenario's deadline. */
  timeLeftMs(): number;
  /** Records `reason` as a failure unless `condition` holds; returns `condition`. */
  expect(condition: boolean, reason: string): boolean;
  /** Adds a line to the scenario's notes. */
  note(text: string): void;
  /** Waits for every tracked order to settle, judges them and returns the result. */
  conclude(): Promise<R>;
  /** A `skip` result saying why the scenario cannot run against this target. */
  skip(reason: string): R;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `read` shows a fulfilment of the order (or the deadline); records a failure on timeout.
 * @returns whether the order was fulfilled in time.
 */
export async function waitForFulfilment<R>(
  ctx: BaseStormContext<R>,
  read: () => Promise<{ readonly fulfilments: number }>,
): Promise<boolean> {
  for (;;) {
    if ((await read()).fulfilments > 0) return true;
    if (ctx.timeLeftMs() === 0) return ctx.expect(false, 'timed out waiting for the fulfilment');
    await sleep(40);
  }
}

/**
 * The job re-run scenario's steps, for any provider: skipped without `rerun` (`missing` says why); else `pay` a fresh
 * order (true when the provider charged it), wait for its fulfilment, and run its fulfilment job again through
 * `rerun` (its note recorded; a throw is a failure). The conclusion then wants still one fulfilment.
 */
export async function rerunAfterFulfilment<R, Order>(
  ctx: BaseStormContext<R>,
  steps: {
    readonly rerun: ((order: Order) => Promise<{ note: string }>) | undefined;
    readonly missing: string | undefined;
    newOrder(): Promise<Order>;
    pay(order: Order): Promise<boolean>;
    read(order: Order): Promise<{ readonly fulfilments: number }>;
  },
): Promise<R> {
  const { rerun } = steps;
  if (rerun === undefined) return ctx.skip(steps.missing ?? 'the target cannot re-run a job (no rerunFulfilment)');
  const order = await steps.newOrder();
  if (!(await steps.pay(order)) || !(await waitForFulfilment(ctx, () => steps.read(order)))) return ctx.conclude();
  try {
    ctx.note((await rerun(order)).note);
  } catch (error) {
    ctx.expect(false, `the re-run failed: ${errorText(error)}`);
  }
  return ctx.conclude();
}
