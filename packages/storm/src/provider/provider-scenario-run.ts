import { errorText } from '../error-text.js';
import type { Verdict } from '../scenario.js';
import { scenarioResultHead } from '../scenario-result-head.js';
import { inTimeOrder, redactAll, type StormTimelineEvent, timelineEvent } from '../storm-timeline.js';
import type { ProviderScenarioCounts, ProviderScenarioResult } from './provider-scenario.js';

const POLL_MS = 40;
/** How long the recheck after the run waits for an order to settle again (it had settled once already). */
const RECHECK_SETTLE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How the timeline names a target's count (`heldTiyin` is in the order's minor units: tiyin, stars). */
const COUNT_NAMES: Readonly<Record<string, string>> = {
  paidTransitions: 'paid transitions',
  heldTiyin: 'money held',
};

/** The text of a thrown value (an `Error`'s message; anything else inspected, never `[object Object]`). */
export { errorText };

/** What the target said about one order at one read: its counts, or why they could not be read. */
export interface OrderRead<C> {
  readonly counts: C | null;
  readonly countsError: string | null;
}

/** The part of a scenario that names it in its result. */
export interface ScenarioInfo {
  readonly id: number;
  readonly name: string;
  readonly defends: ProviderScenarioResult<ProviderScenarioCounts, unknown>['defends'];
  readonly criterion: string;
}

/**
 * What every provider storm's scenario run shares: the deadline, the orders it created (each judged at the end),
 * failures (`expect`), notes, `skip`, the settle loop over the target's counts and the frozen result. A provider's
 * run adds its calls, payers and ledger, and its `conclude`.
 */
export abstract class ProviderScenarioRun<Order, Counts extends object> {
  protected readonly startedAtMs = Date.now();
  private readonly deadlineMs: number;
  protected readonly orders: Order[] = [];
  protected readonly reasons: string[] = [];
  protected readonly notes: string[] = [];
  private readonly timeline: StormTimelineEvent[] = [];
  /** The last counts read of each order (by its key), to record what changed. */
  private readonly lastRead = new Map<string, string>();
  private stopped = false;
  /** Set by {@link beginRecheck}: the deadline of the second look after the run, epoch ms. */
  private recheckUntilMs: number | null = null;
  /** The first judgement of every order (by order index), set by `judgeRead` at the first conclusion. */
  private first: readonly unknown[] | null = null;

  constructor(
    protected readonly scenario: ScenarioInfo,
    protected readonly timeoutMs: number,
  ) {
    this.deadlineMs = this.startedAtMs + timeoutMs;
  }

  /** Milliseconds left before the scenario's deadline. */
  timeLeftMs(): number {
    return this.stopped ? 0 : Math.max(0, (this.recheckUntilMs ?? this.deadlineMs) - Date.now());
  }

  /**
   * Makes the next `conclude()` the second look at the scenario's orders after the whole run: they are read again
   * (a fresh settle window), and a problem an order did not have at the first conclusion fails the scenario, marked
   * "after the run" (an app that answered the call and repeated an effect later, in the background). An order that
   * cannot be read any more (an app restarted without it) is noted and keeps its first judgement. The counts are
   * the later ones. Without an earlier conclusion that judged orders it changes nothing and returns false.
   */
  beginRecheck(): boolean {
    if (this.first === null) return false;
    this.recheckUntilMs = Date.now() + RECHECK_SETTLE_MS;
    return true;
  }

  /** Cuts the scenario's waits short (its run was stopped): every wait and the settling end at their next poll. */
  stop(): void {
    this.stopped = true;
  }

  /** Records `reason` as a failure unless `condition` holds; returns `condition`. */
  expect(condition: boolean, reason: string): boolean {
    if (!condition) this.reasons.push(reason);
    return condition;
  }

  /** Adds a line to the scenario's notes. */
  note(text: string): void {
    this.notes.push(text);
  }

  /** Records one event of the scenario's timeline (an order created, a provider call, a delivery, money moved). */
  record(event: Parameters<typeof timelineEvent>[0]): void {
    this.timeline.push(timelineEvent(event));
  }

  /** Records the order's counts as `app` events, one per value that changed since the last read of it. */
  protected recordRead(key: string, counts: object): void {
    const previous = JSON.parse(this.lastRead.get(key) ?? '{}') as Record<string, unknown>;
    const atMs = Date.now();
    for (const [name, value] of Object.entries(counts)) {
      if (previous[name] === value) continue;
      const was = name in previous ? `was ${String(previous[name])}` : null;
      const what = `${COUNT_NAMES[name] ?? name} ${String(value)}`;
      this.record({ atMs, orderId: key, actor: 'app', what, detail: was });
    }
    this.lastRead.set(key, JSON.stringify(counts));
  }

  /** Records an error that ended the scenario early. */
  fail(error: unknown): void {
    this.reasons.push(`the scenario stopped: ${errorText(error)}`);
  }

  /**
   * Reads every order with `read` until all are `settled` and two reads in a row agree, or the deadline passes; what
   * changed in an order's counts goes to the timeline under `keyOf(order)`.
   */
  protected async settle(
    read: (order: Order) => Promise<Counts>,
    settled: (counts: Counts, order: Order) => boolean,
    keyOf: (order: Order) => string,
  ): Promise<{ values: OrderRead<Counts>[]; timedOut: boolean }> {
    let previous = '';
    for (;;) {
      const values = await Promise.all(
        this.orders.map(async (order): Promise<OrderRead<Counts>> => {
          try {
            const counts = await read(order);
            this.recordRead(keyOf(order), counts);
            return { counts, countsError: null };
          } catch (error) {
            return { counts: null, countsError: errorText(error) };
          }
        }),
      );
      const done = values.every((v, i) => v.counts !== null && settled(v.counts, this.orders[i] as Order));
      const key = JSON.stringify(values);
      if (done && key === previous) return { values, timedOut: false };
      if (this.timeLeftMs() === 0) return { values, timedOut: !done };
      previous = key;
      await sleep(POLL_MS);
    }
  }

  /**
   * The end of a scenario: reads every order until `settled` (or the deadline), `judge`s each with what was read,
   * and returns the verdict (`pass` unless an `expect` or an order's problem failed), the reasons (every order
   * problem prefixed with `label(order)`, also the order's key in the timeline) and the judgements.
   */
  protected async judgeOrders<J extends { readonly problems: readonly string[] }>(
    read: (order: Order) => Promise<Counts>,
    settled: (counts: Counts, order: Order) => boolean,
    judge: (order: Order, seen: OrderRead<Counts>, timedOut: boolean) => J,
    label: (order: Order) => string,
  ): Promise<{ verdict: Verdict; reasons: string[]; orders: J[] }> {
    const { values, timedOut } = await this.settle(read, settled, label);
    return this.judgeRead(values, timedOut, judge, label);
  }

  /**
   * The second half of {@link judgeOrders}, for a run that reads more between settling and judging (Payme's
   * statement): judges every order from `values` (what `settle` read) and returns the verdict, the reasons and the
   * judgements; on the second look after the run (`beginRecheck`), the first conclusion's reasons plus the problems
   * that came later — an order that cannot be read then is one ("the target could not report the order").
   */
  protected judgeRead<J extends { readonly problems: readonly string[] }>(
    values: readonly OrderRead<Counts>[],
    timedOut: boolean,
    judge: (order: Order, seen: OrderRead<Counts>, timedOut: boolean) => J,
    label: (order: Order) => string,
  ): { verdict: Verdict; reasons: string[]; orders: J[] } {
    const first = this.recheckUntilMs === null ? null : (this.first as readonly J[] | null);
    const orders = this.orders.map((order, i): J => {
      const seen = values[i] ?? { counts: null, countsError: 'not read' };
      // At the second look an order that cannot be read is judged so too: its read may break on a late effect.
      return judge(order, seen, timedOut);
    });
    const problemsOf = (judged: readonly { readonly problems: readonly string[] }[]) =>
      judged.flatMap((o, i) => o.problems.map((p) => `order ${label(this.orders[i] as Order)}: ${p}`));
    if (first === null) {
      this.first = orders;
      const reasons = [...this.reasons, ...problemsOf(orders)];
      return { verdict: reasons.length === 0 ? 'pass' : 'fail', reasons, orders };
    }
    // The second look: the first conclusion's reasons stand; a problem an order did not have then is late.
    const late = orders.flatMap((o, i) =>
      o.problems
        .filter((p) => !(first[i]?.problems ?? []).includes(p))
        .map(
          (p) =>
            `after the run: order ${label(this.orders[i] as Order)}: ${p} (the effect came after the scenario concluded)`,
        ),
    );
    const reasons = [...this.reasons, ...problemsOf(first), ...late];
    return { verdict: reasons.length === 0 ? 'pass' : 'fail', reasons, orders };
  }

  /** The frozen result of the scenario with `verdict`, `reasons`, the order judgements and the counts. */
  protected resultOf<C extends ProviderScenarioCounts, J>(
    verdict: Verdict,
    reasons: readonly string[],
    orders: readonly J[],
    counts: C,
  ): ProviderScenarioResult<C, J> {
    // An adapter's or app's error text (a reason, a note, an order's problem) can carry the run's test
    // credentials: no report shows them.
    return redactAll(
      Object.freeze({
        ...scenarioResultHead(this.scenario, verdict, reasons, this.notes),
        counts: Object.freeze(counts),
        orders: Object.freeze([...orders]),
        durationMs: Date.now() - this.startedAtMs,
        timeline: inTimeOrder(this.timeline),
      }),
    );
  }
}
