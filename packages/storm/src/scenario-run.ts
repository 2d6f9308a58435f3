import { randomBytes } from 'node:crypto';
import type { AppApi, AppCallRecord } from './app/app-api.js';
import { InvalidOrderState } from './app/order-state-check.js';
import type { AppPaymentAnswer } from './app/storm-app-adapter.js';
import type { CraftedEvent } from './crafted-event.js';
import { errorText } from './error-text.js';
import { countsOf, isSettled, judgeOrder, type OrderSnapshot, snapshotKey } from './judge.js';
import { orderChanges } from './order-changes.js';
import type { OrderView } from './order-view.js';
import type { SandboxApi, StormDelivery } from './sandbox-api.js';
import type { Scenario, ScenarioResult } from './scenario.js';
import type { ScenarioContext } from './scenario-context.js';
import { scenarioResultHead } from './scenario-result-head.js';
import type { StormMoney } from './service-api.js';
import type { ServiceControl } from './service-control.js';
import type { HttpAnswer } from './storm-http.js';
import { StormRandom } from './storm-random.js';
import { redactAll, redactSecrets, type StormTimelineEvent, timelineEvent } from './storm-timeline.js';

/** What a {@link ScenarioRun} needs from the storm. */
export interface ScenarioRunSettings {
  readonly service: AppApi;
  readonly sandbox: SandboxApi;
  /** Budget of the whole scenario (its waits and the final settling), ms. */
  readonly timeoutMs: number;
  /** The run's seed: the scenario's random choices come from `StormRandom.forScenario(seed, id)`. */
  readonly seed: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const POLL_MS = 50;

/** The order a crafted event names (`data.object.metadata.order_id`), `null` when it names none. */
function craftedOrderId(event: CraftedEvent): string | null {
  try {
    const body = JSON.parse(event.body) as { data?: { object?: { metadata?: { order_id?: unknown } } } };
    const id = body.data?.object?.metadata?.order_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** How long the recheck after the run waits for an order to settle again (it had settled once already). */
const RECHECK_SETTLE_MS = 5_000;
/** Why an order the second look could not read fails its scenario. */
const UNREAD_AFTER = 'the storm cannot tell whether an effect repeated after the scenario concluded';

/** One run of one scenario: the {@link ScenarioContext} it gets, and the bookkeeping behind its result. */
export class ScenarioRun implements ScenarioContext {
  readonly service: AppApi;
  readonly sandbox: SandboxApi;
  readonly serviceControl: ServiceControl;
  readonly restartable: boolean;
  readonly customer: string;
  private readonly random: StormRandom;
  private readonly startedAtMs = Date.now();
  private readonly deadlineMs: number;
  private readonly orders = new Map<string, string>();
  /** The money each order was created with by `newOrder` (the judge holds the app's view and charges to it). */
  private readonly moneyOf = new Map<string, StormMoney>();
  private readonly reasons: string[] = [];
  private readonly notes: string[] = [];
  private crafted = 0;
  private readonly timeline: StormTimelineEvent[] = [];
  private readonly lastViews = new Map<string, OrderView>();
  /** Orders whose `readOrder` answer could not be judged: waiting for them to settle is pointless. */
  private readonly unreadable = new Set<string>();
  private stopped = false;

  constructor(
    private readonly scenario: Scenario,
    settings: ScenarioRunSettings,
  ) {
    this.service = settings.service.observed((call) => this.recordCall(call));
    this.sandbox = settings.sandbox;
    this.random = StormRandom.forScenario(settings.seed, scenario.id);
    const crash = settings.service.adapter.capabilities?.crashAndRestart;
    const replicas = settings.service.replicas.length;
    this.restartable = crash !== undefined;
    this.serviceControl = {
      crashAndRestart: (replica?: number) => {
        if (crash === undefined)
          throw new Error(`the app adapter ${settings.service.adapter.name} has no crashAndRestart`);
        return crash(replica ?? (replicas > 1 ? this.random.int(0, replicas, 'killed replica') : undefined));
      },
    };
    this.deadlineMs = this.startedAtMs + settings.timeoutMs;
    this.customer = `storm-${scenario.id}-${randomBytes(6).toString('hex')}`;
  }

  timeLeftMs(): number {
    return this.stopped ? 0 : Math.max(0, this.deadlineMs - Date.now());
  }

  /** Cuts the scenario's waits short (its run was stopped): every wait and the settling end at their next poll. */
  stop(): void {
    this.stopped = true;
  }

  money(): StormMoney {
    return { amountMinor: this.random.int(100, 100_000, 'amount'), currency: 'EUR' };
  }

  key(label: string): string {
    return `storm-${label}-${randomBytes(8).toString('hex')}`;
  }

  async newOrder(money: StormMoney = this.money(), customer = this.customer): Promise<string> {
    const orderId = await this.service.expectOrder(customer, money);
    this.track(orderId, customer);
    this.moneyOf.set(orderId, money);
    return orderId;
  }

  track(orderId: string, customer = this.customer): void {
    this.orders.set(orderId, customer);
  }

  async checkout(orderId: string, key: string, customer = this.customer): Promise<AppPaymentAnswer> {
    for (;;) {
      const answer = await this.service.checkout(customer, orderId, key);
      // Only "same key still running" carries Retry-After; a 409 for a cancelled/refunded order is final.
      const retryAfter = answer.headers['retry-after'];
      if (answer.status !== 409 || retryAfter === undefined || this.timeLeftMs() === 0) return answer;
      const seconds = Number(retryAfter);
      await sleep(Math.min(250, Number.isFinite(seconds) ? seconds * 1000 : 250));
    }
  }

  async paymentOf(orderId: string): Promise<string> {
    const id = await this.waitFor(`a provider payment for order ${orderId.slice(0, 8)}`, async () => {
      const ledger = await this.sandbox.orderLedger(orderId);
      return ledger.paymentIds[0];
    });
    if (id === null) {
      throw new Error(
        `the sandbox never saw a payment for order ${orderId} (the app must create its PaymentIntent with ` +
          `metadata.order_id = the order's id: docs/storm-your-app.md, "What the storm expects of your app")`,
      );
    }
    return id;
  }

  async view(orderId: string, customer = this.orders.get(orderId) ?? this.customer): Promise<OrderView> {
    return this.observe(orderId, await this.service.orderView(customer, orderId));
  }

  /** Records a storm→app call of the adapter in the timeline. */
  private recordCall(call: AppCallRecord): void {
    const what =
      call.operation === 'webhook' ? `webhook POST ${new URL(call.url ?? 'http://x/').pathname}` : call.operation;
    this.timeline.push(
      timelineEvent({
        atMs: Date.now(),
        orderId: call.orderId,
        actor: 'storm→app',
        what,
        status: call.status,
        idempotencyKey: call.idempotencyKey,
        detail: call.error ?? null,
      }),
    );
  }

  /** Records what changed in the order since the storm last read it; returns `view`. */
  private observe(orderId: string, view: OrderView): OrderView {
    this.timeline.push(...orderChanges(orderId, this.lastViews.get(orderId) ?? null, view, Date.now()));
    this.lastViews.set(orderId, view);
    return view;
  }

  async waitFor<T>(
    what: string,
    probe: () => Promise<T | null | undefined | false>,
    pollMs = POLL_MS,
  ): Promise<T | null> {
    for (;;) {
      const value = await probe();
      if (value !== null && value !== undefined && value !== false) return value;
      if (this.timeLeftMs() === 0) {
        this.reasons.push(`timed out waiting for ${what}`);
        return null;
      }
      await sleep(Math.min(pollMs, this.timeLeftMs()));
    }
  }

  async sendCrafted(event: CraftedEvent, replica?: number): Promise<HttpAnswer> {
    this.crafted += 1;
    const service = replica === undefined ? this.service : this.service.on(replica);
    return service.webhook(event.endpoint, event.headers, event.body, craftedOrderId(event));
  }

  expect(condition: boolean, reason: string): boolean {
    if (!condition) this.reasons.push(reason);
    return condition;
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /** Records an error thrown by the scenario as a failure (the runner calls it). */
  fail(error: unknown): void {
    this.reasons.push(`scenario error: ${errorText(error)}`);
  }

  async conclude(): Promise<ScenarioResult> {
    // Settling gets at least 5 s even when the scenario used up its budget, so a late effect is still seen.
    const settleDeadline = Math.max(this.deadlineMs, Date.now() + 5_000);
    const snapshots = await Promise.all(
      [...this.orders].map(([orderId, customer]) => this.settle(orderId, customer, settleDeadline)),
    );
    const orders = snapshots.map(judgeOrder);
    const reasons = [...this.reasons, ...orders.flatMap((o) => o.problems)];
    return this.result(reasons.length === 0 ? 'pass' : 'fail', reasons, orders);
  }

  /**
   * Judges `result`'s orders again after the whole run (`runStorm` calls it once every scenario concluded and the
   * run's settle window passed): an app that acknowledges a delivery and does the work later, in the background,
   * can repeat an effect after its scenario concluded. A problem the order did not have at the conclusion fails the
   * scenario, marked "after the run"; the counts are the later ones. An order the app cannot show again within the
   * settle window fails it too (its read may break on the very effect: "expected one fulfilment, found 2"). A skip,
   * or a result with no order, is returned as it is.
   */
  async recheck(result: ScenarioResult): Promise<ScenarioResult> {
    if (result.verdict === 'skip' || this.orders.size === 0) return result;
    const before = new Map(result.orders.map((order) => [order.orderId, order.problems]));
    const deadlineMs = Date.now() + RECHECK_SETTLE_MS;
    const snapshots = await Promise.all(
      [...this.orders].map(([orderId, customer]) => this.settle(orderId, customer, deadlineMs)),
    );
    // An order the app cannot show any more (it lost it in a restart, its read breaks on what it finds, it stopped
    // answering through the settle window) may hide a late effect: the storm cannot vouch for it, so it fails.
    const unread = snapshots
      .filter((snapshot) => snapshot.view === null)
      .map((s) => `after the run: order ${s.orderId} could not be read again (${s.viewError}): ${UNREAD_AFTER}`);
    const rejudged = new Map(snapshots.filter((s) => s.view !== null).map((s) => [s.orderId, judgeOrder(s)]));
    const late = [...rejudged.values()].flatMap((order) =>
      order.problems
        // The result's problems were redacted (`result`): compare like with like.
        .filter((problem) => !(before.get(order.orderId) ?? []).includes(redactSecrets(problem)))
        .map((problem) => `after the run: ${problem} (the effect came after the scenario concluded)`),
    );
    late.push(...unread);
    const orders = result.orders.map((order) => rejudged.get(order.orderId) ?? order);
    const verdict = late.length === 0 ? result.verdict : 'fail';
    return { ...this.result(verdict, [...result.reasons, ...late], orders), durationMs: result.durationMs };
  }

  /** A `fail` result with the reasons so far and no order judged (when even judging was impossible). */
  abort(): ScenarioResult {
    return this.result('fail', this.reasons, []);
  }

  skip(reason: string): ScenarioResult {
    return this.result('skip', [reason], []);
  }

  /** The choices drawn from the run's seed so far (amounts, the replica killed): the scenario's fault plan. */
  faultPlan(): readonly string[] {
    return Object.freeze([...this.random.drawn]);
  }

  private result(
    verdict: ScenarioResult['verdict'],
    reasons: readonly string[],
    orders: ScenarioResult['orders'],
  ): ScenarioResult {
    // An adapter's or app's error text (a reason, a note, an order's problem) can carry the run's test
    // credentials: no report shows them.
    return redactAll(
      Object.freeze({
        ...scenarioResultHead(this.scenario, verdict, reasons, this.notes),
        counts: countsOf(orders, this.crafted),
        orders: Object.freeze(orders),
        faultPlan: this.faultPlan(),
        timeline: Object.freeze([...this.timeline]),
        durationMs: Date.now() - this.startedAtMs,
      }),
    );
  }

  /**
   * Waits until the order settled (see `isSettled`) and two snapshots in a row agree, or `deadlineMs`; returns the
   * last snapshot.
   */
  private async settle(orderId: string, customer: string, deadlineMs: number): Promise<OrderSnapshot> {
    let previous: string | null = null;
    let last: OrderSnapshot | null = null;
    for (;;) {
      const left = deadlineMs - Date.now();
      await this.sandbox.idle(Math.max(1, Math.min(2_000, left))).catch(() => false);
      last = await this.snapshot(orderId, customer, left <= 0);
      if (this.unreadable.has(orderId)) return last;
      if (isSettled(last)) {
        const key = snapshotKey(last);
        if (key === previous) return last;
        previous = key;
      } else {
        previous = null;
      }
      if (Date.now() >= deadlineMs || this.stopped) return { ...last, timedOut: !isSettled(last) };
      await sleep(Math.min(100, Math.max(1, deadlineMs - Date.now())));
    }
  }

  private async snapshot(orderId: string, customer: string, timedOut: boolean): Promise<OrderSnapshot> {
    const ledger = await this.sandbox.orderLedger(orderId);
    let view: OrderView | null = null;
    let viewError: string | null = null;
    try {
      view = this.observe(orderId, await this.service.orderView(customer, orderId));
    } catch (error) {
      viewError = errorText(error);
      if (error instanceof InvalidOrderState) this.unreadable.add(orderId);
    }
    const deliveries: StormDelivery[] = [];
    for (const paymentId of ledger.paymentIds) deliveries.push(...(await this.sandbox.deliveries(paymentId)));
    return { orderId, view, viewError, ledger, deliveries, timedOut, money: this.moneyOf.get(orderId) ?? null };
  }
}
