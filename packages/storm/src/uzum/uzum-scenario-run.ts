import { randomInt, randomUUID } from 'node:crypto';
import {
  callUzum,
  createUzumPayer,
  type UzumCallSpec,
  type UzumExchange,
  UzumLedger,
  type UzumPayer,
} from '@payonce/sandbox/uzum';
import { CallOrders } from '../provider/call-orders.js';
import { mergedLedger } from '../provider/merged-ledger.js';
import { isOrderSettled } from '../provider/order-rules.js';
import { ProviderScenarioRun } from '../provider/provider-scenario-run.js';
import type { HeldOrderCounts } from '../provider/storm-target-capabilities.js';
import { uzumCallEvent } from './uzum-call-event.js';
import { judgeUzumOrder, type UzumLedgerParts, uzumCharges } from './uzum-judge.js';
import type { UzumContext, UzumOrderJudgement, UzumScenario, UzumScenarioResult } from './uzum-scenario.js';
import { describeUzumExchange, uzumCodeOf } from './uzum-storm-context.js';
import type { UzumStormOrder, UzumStormTarget } from './uzum-storm-target.js';

/** One run of one Uzum scenario: the context it gets, and its judgement at the end. */
export class UzumScenarioRun extends ProviderScenarioRun<UzumStormOrder, HeldOrderCounts> implements UzumContext {
  private readonly own = new UzumLedger();
  private readonly ledgers: UzumLedger[] = [this.own];

  constructor(
    scenario: UzumScenario,
    readonly target: UzumStormTarget,
    timeoutMs: number,
  ) {
    super(scenario, timeoutMs);
  }

  private readonly callOrders = new CallOrders();

  private get wire() {
    const { merchantUrl, login, password, serviceId } = this.target;
    const callTimeoutMs = Math.min(this.timeoutMs, 10_000);
    const observe = (exchange: UzumExchange, sentAtMs: number) =>
      this.record(uzumCallEvent(exchange, sentAtMs, this.callOrders));
    return { merchantUrl, login, password, serviceId, callTimeoutMs, observe };
  }

  async newOrder(amountTiyin = randomInt(10, 10_000) * 100): Promise<UzumStormOrder> {
    const order = await this.target.createOrder(amountTiyin);
    this.orders.push(order);
    const orderId = JSON.stringify(order.params);
    this.record({
      atMs: Date.now(),
      orderId,
      actor: 'storm→app',
      what: 'create order',
      detail: `${amountTiyin} tiyin`,
    });
    return order;
  }

  payer(): UzumPayer {
    const payer = createUzumPayer(this.wire);
    this.ledgers.push(payer.ledger);
    return payer;
  }

  async call(spec: UzumCallSpec): Promise<UzumExchange> {
    const real = (spec.auth ?? 'basic') === 'basic';
    const fields = spec.fields ?? {};
    const id = typeof fields.transId === 'string' ? fields.transId : null;
    if (real && spec.operation === 'create' && id !== null && this.ledgerOf(id) === undefined) {
      this.own.open(id, (fields.params ?? {}) as Record<string, unknown>, Number(fields.amount));
    }
    this.own.called();
    const exchange = await callUzum(this.wire, spec);
    // Only answers to the real credentials count: a forged call's answer is not Uzum Bank's view of the transaction.
    if (real && id !== null && exchange.answer !== null) this.ledgerOf(id)?.report(id, exchange.answer);
    return exchange;
  }

  private ledgerOf(id: string): UzumLedger | undefined {
    return this.ledgers.find((l) => l.transaction(id) !== undefined);
  }

  newTransId(): string {
    return randomUUID();
  }

  expectFailed(exchange: UzumExchange, what: string, codes: readonly string[]): boolean {
    const got = uzumCodeOf(exchange);
    const ok = got !== null && codes.includes(got);
    return this.expect(ok, `${what}: expected FAILED ${codes.join(' or ')}, got ${describeUzumExchange(exchange)}`);
  }

  expectStatus(exchange: UzumExchange, what: string, status: string): boolean {
    const ok = exchange.status === 200 && exchange.answer?.status === status;
    return this.expect(ok, `${what}: expected ${status}, got ${describeUzumExchange(exchange)}`);
  }

  skip(reason: string): UzumScenarioResult {
    return this.result('skip', [reason], []);
  }

  async conclude(): Promise<UzumScenarioResult> {
    // /status of every transaction opened by single calls, so the ledger holds the merchant's final state.
    for (const tx of this.own.snapshot().transactions) {
      await this.call({ operation: 'status', fields: { transId: tx.transId } });
    }
    const ledger = this.merged();
    const key = (order: UzumStormOrder) => JSON.stringify(order.params);
    const { verdict, reasons, orders } = await this.judgeOrders(
      (order) => this.target.readOrder(order.params),
      (c, order) => {
        const { confirms, refunds } = uzumCharges(ledger, key(order));
        return isOrderSettled(c, confirms, refunds);
      },
      (order, seen, timedOut) => judgeUzumOrder({ params: key(order), ledger, ...seen, timedOut }),
      key,
    );
    return this.result(verdict, reasons, orders);
  }

  private merged(): UzumLedgerParts {
    return mergedLedger(this.ledgers.map((l) => l.snapshot()));
  }

  private result(
    verdict: UzumScenarioResult['verdict'],
    reasons: readonly string[],
    orders: readonly UzumOrderJudgement[],
  ): UzumScenarioResult {
    const ledger = this.merged();
    const sum = (pick: (o: UzumOrderJudgement) => number) => orders.reduce((n, o) => n + pick(o), 0);
    return this.resultOf(verdict, reasons, orders, {
      calls: ledger.calls,
      faults: ledger.faults.length,
      confirms: sum((o) => o.confirms),
      paidTransitions: sum((o) => o.paidTransitions),
      fulfilments: sum((o) => o.fulfilments),
    });
  }
}
