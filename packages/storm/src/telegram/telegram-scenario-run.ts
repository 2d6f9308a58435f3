import { randomInt } from 'node:crypto';
import type { CustomerPayResult, SandboxUpdate } from '@payonce/sandbox/telegram';
import { isOrderSettled } from '../provider/order-rules.js';
import { ProviderScenarioRun } from '../provider/provider-scenario-run.js';
import type { HeldOrderCounts } from '../provider/storm-target-capabilities.js';
import { judgeTelegramOrder, telegramCharges } from './telegram-judge.js';
import type {
  TelegramContext,
  TelegramOrderJudgement,
  TelegramScenario,
  TelegramScenarioResult,
  TelegramStormOrder,
} from './telegram-scenario.js';
import type { TelegramStormSandbox } from './telegram-storm-sandbox.js';
import type { TelegramStormTarget } from './telegram-storm-target.js';
import { deliveryEvent, movementEvents } from './telegram-timeline.js';
import { orderIdOfUpdate, type TelegramUpdatePump, type UpdateDeliverer } from './telegram-update-pump.js';
import { postUpdate, type WebhookPostOptions } from './telegram-webhook-post.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The storm's `update_id`s for crafted updates: far above the sandbox's, unique within the process. */
let crafted = 4_000_000_000_000 + randomInt(0, 1_000_000) * 1_000;

/** What every scenario of one Telegram storm run shares: the target, the sandbox and its update pump. */
export interface TelegramStormWorld {
  readonly target: TelegramStormTarget;
  readonly sandbox: TelegramStormSandbox;
  readonly pump: TelegramUpdatePump;
}

const is2xx = (status: number | null) => status !== null && status >= 200 && status < 300;

/** One run of one Telegram scenario: the context it gets, and its judgement at the end. */
export class TelegramScenarioRun
  extends ProviderScenarioRun<TelegramStormOrder, HeldOrderCounts>
  implements TelegramContext
{
  private calls = 0;
  private faults = 0;

  constructor(
    scenario: TelegramScenario,
    private readonly world: TelegramStormWorld,
    timeoutMs: number,
  ) {
    super(scenario, timeoutMs);
  }

  get target(): TelegramStormTarget {
    return this.world.target;
  }

  async newOrder(stars = randomInt(1, 1_000)): Promise<TelegramStormOrder> {
    const orderId = await this.target.createOrder(stars);
    const userId = randomInt(700_000_000, 800_000_000);
    this.orders.push({ orderId, stars, userId, invoiceRef: '' });
    this.record({ atMs: Date.now(), orderId, actor: 'storm→app', what: 'create order', detail: `${stars} stars` });
    await this.target.sendInvoice(orderId, userId);
    this.record({ atMs: Date.now(), orderId, actor: 'storm→app', what: 'send invoice', detail: `chat ${userId}` });
    const invoice = this.world.sandbox.invoices().find((i) => i.payload === orderId);
    if (invoice === undefined) throw new Error(`the bot's invoice of ${orderId} did not reach Telegram (the sandbox)`);
    const order = { orderId, stars, userId, invoiceRef: invoice.ref };
    this.orders[this.orders.length - 1] = order;
    return order;
  }

  async pay(order: TelegramStormOrder, deliver?: UpdateDeliverer): Promise<CustomerPayResult> {
    this.world.pump.route(order.orderId, deliver ?? ((update) => this.redeliver(update).then(() => {})));
    const paid = await this.world.sandbox.pay({ invoiceRef: order.invoiceRef, userId: order.userId });
    const [orderId, detail] = [order.orderId, paid.errorMessage];
    this.record({ atMs: Date.now(), orderId, actor: 'provider', what: `customer paid: ${paid.outcome}`, detail });
    return paid;
  }

  payer() {
    return { pay: (order: TelegramStormOrder) => this.pay(order) };
  }

  async post(update: SandboxUpdate, options?: WebhookPostOptions): Promise<number | null> {
    this.calls += 1;
    const budget = Math.max(1, Math.min(this.timeLeftMs(), 10_000));
    const sentAtMs = Date.now();
    const status = await postUpdate(this.target.webhookUrl, this.target.secretToken, update, {
      timeoutMs: budget,
      ...options,
    });
    this.record(deliveryEvent(update, orderIdOfUpdate(update), status, sentAtMs, options));
    return status;
  }

  async redeliver(update: SandboxUpdate): Promise<readonly (number | null)[]> {
    const statuses: (number | null)[] = [];
    for (;;) {
      const status = await this.post(update);
      statuses.push(status);
      if (is2xx(status) || this.timeLeftMs() === 0) return statuses;
      await sleep(50);
    }
  }

  updatesOf(order: TelegramStormOrder): readonly SandboxUpdate[] {
    return this.world.pump.updatesOf(order.orderId);
  }

  newUpdateId(): number {
    crafted += 1;
    return crafted;
  }

  injected(count = 1): void {
    this.faults += count;
  }

  skip(reason: string): TelegramScenarioResult {
    return this.result('skip', [reason], []);
  }

  async conclude(): Promise<TelegramScenarioResult> {
    const ledger = () => this.world.sandbox.ledger.snapshot().movements;
    const mine = new Set(this.orders.map((o) => o.orderId));
    for (const event of movementEvents(ledger(), mine, Date.now())) this.record(event);
    const { verdict, reasons, orders } = await this.judgeOrders(
      (order) => this.target.readOrder(order.orderId),
      (c, order) => {
        const { charges, refunds } = telegramCharges(ledger(), order.orderId);
        return isOrderSettled(c, charges, refunds);
      },
      (order, seen, timedOut) => judgeTelegramOrder({ orderId: order.orderId, movements: ledger(), ...seen, timedOut }),
      (order) => order.orderId,
    );
    return this.result(verdict, reasons, orders);
  }

  private result(
    verdict: TelegramScenarioResult['verdict'],
    reasons: readonly string[],
    orders: readonly TelegramOrderJudgement[],
  ): TelegramScenarioResult {
    const sum = (pick: (o: TelegramOrderJudgement) => number) => orders.reduce((n, o) => n + pick(o), 0);
    return this.resultOf(verdict, reasons, orders, {
      calls: this.calls,
      faults: this.faults,
      charges: sum((o) => o.charges),
      paidTransitions: sum((o) => o.paidTransitions),
      fulfilments: sum((o) => o.fulfilments),
    });
  }
}
