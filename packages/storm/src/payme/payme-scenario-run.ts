import { randomInt } from 'node:crypto';
import { callPayme, type PaymeCallSpec } from '@payonce/sandbox/internal/payme/payme-rpc.js';
import {
  createPaymePayer,
  newPaymeId,
  type PaymeExchange,
  PaymeLedger,
  type PaymeLedgerSnapshot,
  type PaymePayer,
} from '@payonce/sandbox/payme';
import { CallOrders } from '../provider/call-orders.js';
import { mergedLedger } from '../provider/merged-ledger.js';
import { ProviderScenarioRun } from '../provider/provider-scenario-run.js';
import { paymeCallEvent } from './payme-call-event.js';
import { isPaymeSettled, judgePaymeOrder, type PaymeOrderSnapshot, type StatementEntry } from './payme-judge.js';
import type { PaymeOrderJudgement, PaymeScenario, PaymeScenarioResult } from './payme-scenario.js';
import { codeOf, describeExchange, type PaymeStormContext } from './payme-storm-context.js';
import type { PaymeOrderCounts, PaymeStormOrder, PaymeStormTarget } from './payme-storm-target.js';

/** Every ledger of a scenario as one snapshot. */
function merged(ledgers: readonly PaymeLedger[]): PaymeLedgerSnapshot {
  const parts = ledgers.map((l) => l.snapshot());
  return { ...mergedLedger(parts), movedTiyin: parts.reduce((n, p) => n + p.movedTiyin, 0) };
}

/** One run of one Payme scenario: the context it gets, and its judgement at the end. */
export class PaymeScenarioRun
  extends ProviderScenarioRun<PaymeStormOrder, PaymeOrderCounts>
  implements PaymeStormContext
{
  private readonly own = new PaymeLedger();
  private readonly ledgers: PaymeLedger[] = [this.own];
  private extraCalls = 0;
  private readonly callOrders = new CallOrders();
  /** Records every Merchant API call of the scenario in its timeline. */
  private readonly observe = (exchange: PaymeExchange, sentAtMs: number) =>
    this.record(paymeCallEvent(exchange, sentAtMs, this.callOrders));

  constructor(
    scenario: PaymeScenario,
    readonly target: PaymeStormTarget,
    timeoutMs: number,
  ) {
    super(scenario, timeoutMs);
  }

  now(): number {
    return this.target.clock?.now() ?? Date.now();
  }

  async newOrder(amount = randomInt(10, 10_000) * 100): Promise<PaymeStormOrder> {
    const order = await this.target.createOrder(amount);
    this.orders.push(order);
    const orderId = JSON.stringify(order.account);
    this.record({ atMs: Date.now(), orderId, actor: 'storm→app', what: 'create order', detail: `${amount} tiyin` });
    return order;
  }

  payer(options: { moveClock?: boolean } = {}): PaymePayer {
    const clock = this.target.clock;
    const payerOptions = {
      merchantUrl: this.target.merchantUrl,
      key: this.target.key,
      callTimeoutMs: Math.min(this.timeoutMs, 10_000),
      observe: this.observe,
      clock: { now: () => this.now() },
      ...(options.moveClock && clock !== undefined ? { advanceClock: (ms: number) => clock.advance(ms) } : {}),
    };
    const payer = createPaymePayer(payerOptions);
    this.ledgers.push(payer.ledger);
    return payer;
  }

  async call(spec: PaymeCallSpec): Promise<PaymeExchange> {
    const params = spec.params ?? {};
    const id = typeof params.id === 'string' ? params.id : null;
    if (spec.method === 'CreateTransaction' && id !== null && this.own.transaction(id) === undefined) {
      const account = (params.account ?? {}) as Record<string, unknown>;
      this.own.open(id, account, Number(params.amount), Number(params.time));
    }
    this.own.called();
    const { merchantUrl, key } = this.target;
    const callTimeoutMs = Math.min(this.timeoutMs, 10_000);
    const exchange = await callPayme({ merchantUrl, key, callTimeoutMs, observe: this.observe }, spec);
    const result = exchange.answer?.result;
    // Only answers to the real key count: a forged call's answer is not Payme's view of the transaction.
    if (id !== null && result !== undefined && (spec.auth ?? 'key') === 'key') this.ledgerOf(id).report(id, result);
    return exchange;
  }

  /** The ledger that opened transaction `id` (a payer's, or the scenario's own). */
  private ledgerOf(id: string): PaymeLedger {
    return this.ledgers.find((l) => l.transaction(id) !== undefined) ?? this.own;
  }

  newId(): string {
    return newPaymeId();
  }

  expectError(exchange: PaymeExchange, what: string, code: number, accept?: (code: number) => boolean): boolean {
    const got = codeOf(exchange);
    const ok = got !== null && (accept === undefined ? got === code : accept(got));
    return this.expect(ok, `${what}: expected error ${code}, got ${describeExchange(exchange)}`);
  }

  skip(reason: string): PaymeScenarioResult {
    return this.result('skip', [reason], []);
  }

  async conclude(): Promise<PaymeScenarioResult> {
    await this.syncOwnTransactions();
    const settledLedger = merged(this.ledgers);
    const counts = await this.settle(
      (order) => this.target.readOrder(order.account),
      (c, order) => {
        const { performs, refunds } = this.performsOf(settledLedger, order);
        return isPaymeSettled(c, performs, refunds);
      },
      (order) => JSON.stringify(order.account),
    );
    const ledger = merged(this.ledgers);
    const statement = await this.statement(ledger);
    const { verdict, reasons, orders } = this.judgeRead(
      counts.values,
      counts.timedOut,
      (order, seen, timedOut) =>
        judgePaymeOrder({
          account: JSON.stringify(order.account),
          ledger,
          ...statement,
          ...seen,
          timedOut,
        } as PaymeOrderSnapshot),
      (order) => JSON.stringify(order.account),
    );
    return this.result(verdict, reasons, orders);
  }

  /** CheckTransaction for every transaction the scenario created by single calls, so the ledger has its final state. */
  private async syncOwnTransactions(): Promise<void> {
    for (const tx of this.own.snapshot().transactions) {
      await this.call({ method: 'CheckTransaction', params: { id: tx.paymeId } });
    }
  }

  private performsOf(ledger: PaymeLedgerSnapshot, order: PaymeStormOrder) {
    const key = JSON.stringify(order.account);
    const ids = new Set(ledger.transactions.filter((t) => JSON.stringify(t.account) === key).map((t) => t.paymeId));
    const moves = ledger.movements.filter((m) => ids.has(m.paymeId));
    return {
      performs: moves.filter((m) => m.kind === 'debit').length,
      refunds: moves.filter((m) => m.kind === 'refund').length,
    };
  }

  /** GetStatement over the Payme times of the scenario's transactions. */
  private async statement(
    ledger: PaymeLedgerSnapshot,
  ): Promise<{ statement: StatementEntry[] | null; statementError: string | null }> {
    const times = ledger.transactions.map((t) => t.time).filter((t) => Number.isSafeInteger(t));
    if (times.length === 0) return { statement: [], statementError: null };
    const from = Math.min(...times) - 1;
    const to = Math.max(...times) + 1;
    this.extraCalls++;
    const exchange = await callPayme(
      { merchantUrl: this.target.merchantUrl, key: this.target.key, callTimeoutMs: 10_000 },
      { method: 'GetStatement', params: { from, to } },
    );
    const list = exchange.answer?.result?.transactions;
    if (!Array.isArray(list)) return { statement: null, statementError: describeExchange(exchange) };
    return { statement: list as StatementEntry[], statementError: null };
  }

  private result(
    verdict: PaymeScenarioResult['verdict'],
    reasons: readonly string[],
    orders: readonly PaymeOrderJudgement[],
  ): PaymeScenarioResult {
    const ledger = merged(this.ledgers);
    const sum = (pick: (o: PaymeOrderJudgement) => number) => orders.reduce((n, o) => n + pick(o), 0);
    return this.resultOf(verdict, reasons, orders, {
      calls: ledger.calls + this.extraCalls,
      faults: ledger.faults.length,
      performs: sum((o) => o.performs),
      paidTransitions: sum((o) => o.paidTransitions),
      fulfilments: sum((o) => o.fulfilments),
    });
  }
}
