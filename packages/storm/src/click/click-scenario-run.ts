import { randomInt } from 'node:crypto';
import {
  type ClickCallSpec,
  type ClickExchange,
  ClickLedger,
  type ClickPayer,
  callClick,
  createClickPayer,
  newClickTransId,
} from '@payonce/sandbox/click';
import { mergedLedger } from '../provider/merged-ledger.js';
import { isOrderSettled } from '../provider/order-rules.js';
import { ProviderScenarioRun } from '../provider/provider-scenario-run.js';
import type { HeldOrderCounts } from '../provider/storm-target-capabilities.js';
import { clickCallEvent } from './click-call-event.js';
import { type ClickLedgerParts, clickCharges, judgeClickOrder } from './click-judge.js';
import type { ClickContext, ClickOrderJudgement, ClickScenario, ClickScenarioResult } from './click-scenario.js';
import { clickErrorOf, describeClickExchange } from './click-storm-context.js';
import type { ClickStormOrder, ClickStormTarget } from './click-storm-target.js';

/** Tiyin of a sum as Click writes it (`1000`, `1000.50`). */
const tiyinOf = (amount: string): number => Math.round(Number(amount) * 100);

/** One run of one Click scenario: the context it gets, and its judgement at the end. */
export class ClickScenarioRun extends ProviderScenarioRun<ClickStormOrder, HeldOrderCounts> implements ClickContext {
  private readonly own = new ClickLedger();
  private readonly ledgers: ClickLedger[] = [this.own];

  constructor(
    scenario: ClickScenario,
    readonly target: ClickStormTarget,
    timeoutMs: number,
  ) {
    super(scenario, timeoutMs);
  }

  private get wire() {
    const { prepareUrl, completeUrl, serviceId, secretKey } = this.target;
    const callTimeoutMs = Math.min(this.timeoutMs, 10_000);
    const observe = (exchange: ClickExchange, sentAtMs: number) => this.record(clickCallEvent(exchange, sentAtMs));
    return { prepareUrl, completeUrl, serviceId, secretKey, callTimeoutMs, observe };
  }

  async newOrder(amountTiyin = randomInt(10, 10_000) * 100): Promise<ClickStormOrder> {
    const order = await this.target.createOrder(amountTiyin);
    this.orders.push(order);
    const orderId = order.merchantTransId;
    this.record({
      atMs: Date.now(),
      orderId,
      actor: 'storm→app',
      what: 'create order',
      detail: `${amountTiyin} tiyin`,
    });
    return order;
  }

  payer(): ClickPayer {
    const payer = createClickPayer(this.wire);
    this.ledgers.push(payer.ledger);
    return payer;
  }

  async call(spec: ClickCallSpec): Promise<ClickExchange> {
    const signed = spec.signWith !== 'wrong-secret';
    const id = spec.clickTransId;
    if (signed && spec.action === 0 && this.ledgerOf(id) === undefined) {
      this.own.open(id, spec.merchantTransId, tiyinOf(spec.amount));
    }
    this.own.called();
    const exchange = await callClick(this.wire, spec);
    const error = clickErrorOf(exchange);
    const ledger = this.ledgerOf(id);
    // Only answers to signed calls count: a forged call's answer is not Click's view of the payment.
    if (signed && ledger !== undefined) {
      if (spec.action === 0 && error === 0) ledger.report(id, 'prepared', exchange.answer?.merchant_prepare_id);
      if (spec.action === 1 && error === 0 && (spec.error ?? 0) === 0) {
        ledger.report(id, 'completed', exchange.answer?.merchant_confirm_id);
      }
      if (spec.action === 1 && error === -9) ledger.report(id, 'cancelled', null);
    }
    return exchange;
  }

  private ledgerOf(id: number): ClickLedger | undefined {
    return this.ledgers.find((l) => l.transaction(id) !== undefined);
  }

  newTransId(): number {
    return newClickTransId();
  }

  expectError(exchange: ClickExchange, what: string, codes: readonly number[]): boolean {
    const got = clickErrorOf(exchange);
    const ok = got !== null && codes.includes(got);
    return this.expect(ok, `${what}: expected error ${codes.join(' or ')}, got ${describeClickExchange(exchange)}`);
  }

  skip(reason: string): ClickScenarioResult {
    return this.result('skip', [reason], []);
  }

  async conclude(): Promise<ClickScenarioResult> {
    const ledger = this.merged();
    const { verdict, reasons, orders } = await this.judgeOrders(
      (order) => this.target.readOrder(order.merchantTransId),
      (c, order) => isOrderSettled(c, clickCharges(ledger, order.merchantTransId).completes, 0),
      (order, seen, timedOut) => judgeClickOrder({ merchantTransId: order.merchantTransId, ledger, ...seen, timedOut }),
      (order) => order.merchantTransId,
    );
    return this.result(verdict, reasons, orders);
  }

  private merged(): ClickLedgerParts {
    return mergedLedger(this.ledgers.map((l) => l.snapshot()));
  }

  private result(
    verdict: ClickScenarioResult['verdict'],
    reasons: readonly string[],
    orders: readonly ClickOrderJudgement[],
  ): ClickScenarioResult {
    const ledger = this.merged();
    const sum = (pick: (o: ClickOrderJudgement) => number) => orders.reduce((n, o) => n + pick(o), 0);
    return this.resultOf(verdict, reasons, orders, {
      calls: ledger.calls,
      faults: ledger.faults.length,
      completes: sum((o) => o.completes),
      paidTransitions: sum((o) => o.paidTransitions),
      fulfilments: sum((o) => o.fulfilments),
    });
  }
}
