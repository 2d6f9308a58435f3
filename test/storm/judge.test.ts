import { describe, expect, it } from 'vitest';
import { countsOf, duplicatesOf, isSettled, judgeOrder, type OrderSnapshot } from '../../packages/storm/src/judge.js';
import type { OrderView } from '../../packages/storm/src/order-view.js';
import { parseOrderView } from '../../packages/storm/src/order-view.js';
import type { StormDelivery } from '../../packages/storm/src/sandbox-api.js';
import type { ScenarioResult } from '../../packages/storm/src/scenario.js';
import type { StormReport } from '../../packages/storm/src/storm-report.js';
import { formatStormTable, stormSummary } from '../../packages/storm/src/storm-table.js';

const ORDER = '0b6f3c1e-0000-4000-8000-000000000001';

function view(change: Partial<OrderView> & { status?: string } = {}): OrderView {
  return {
    order: { id: ORDER, status: change.status ?? 'completed', amountMinor: 1999, currency: 'EUR', paidAttemptId: 'a1' },
    attempts: [{ id: 'a1', status: 'succeeded', providerPaymentId: 'pi_1', amountMinor: 1999, currency: 'EUR' }],
    paidTransitions: 1,
    fulfilments: [{ id: 'f1', jobId: 'j1' }],
    jobs: [{ id: 'j1', topic: 'order.fulfil', status: 'done', attempts: 1 }],
    journal: [],
    deliveries: [],
    ...change,
  };
}

function snapshot(v: OrderView | null, charges = 1, deliveries: StormDelivery[] = []): OrderSnapshot {
  return {
    orderId: ORDER,
    view: v,
    viewError: v === null ? 'GET /orders answered 500' : null,
    ledger: {
      chargeCount: charges,
      refundCount: 0,
      paymentIds: Array.from({ length: Math.max(charges, 1) }, (_, i) => `pi_${i}`),
      charges: Array.from({ length: charges }, (_, i) => ({
        paymentId: `pi_${i}`,
        amountMinor: 1999,
        currency: 'EUR',
      })),
    },
    deliveries,
    timedOut: false,
  };
}

const delivery = (sourceEventId: string, kind: string): StormDelivery => ({
  eventId: sourceEventId,
  sourceEventId,
  eventType: 'payment_intent.succeeded',
  paymentId: 'pi_0',
  kind,
  status: 200,
});

describe('judgeOrder: the common rule of SPEC §9', () => {
  it('passes an order charged, paid and fulfilled exactly once', () => {
    expect(judgeOrder(snapshot(view())).problems).toEqual([]);
  });

  it.each<[string, OrderSnapshot, RegExp]>([
    ['two charges', snapshot(view(), 2), /charged 2 times by the provider/],
    ['two paid transitions', snapshot(view({ paidTransitions: 2 })), /moved to paid 2 times/],
    [
      'two fulfilments',
      snapshot(
        view({
          fulfilments: [
            { id: 'f1', jobId: 'j1' },
            { id: 'f2', jobId: null },
          ],
        }),
      ),
      /fulfilled 2 times/,
    ],
    [
      'a lost payment',
      snapshot(view({ status: 'awaiting_payment', paidTransitions: 0, fulfilments: [] })),
      /charged but never marked paid/,
    ],
    [
      'a paid order never fulfilled',
      snapshot(view({ fulfilments: [], status: 'paid' })),
      /charged but never fulfilled/,
    ],
    ['paid without a charge', snapshot(view(), 0), /was never charged/],
    [
      'a dead-lettered job',
      snapshot(view({ jobs: [{ id: 'j1', topic: 'order.fulfil', status: 'dead', attempts: 5 }] })),
      /dead-lettered/,
    ],
    ['an unreadable view', snapshot(null), /could not be read \(GET \/orders answered 500\)/],
    [
      'a naive handler that journals nothing',
      snapshot(view({ status: 'paid', paidTransitions: 0 })),
      /no paid transition/,
    ],
  ])('fails %s', (_what, input, problem) => {
    expect(judgeOrder(input).problems.join('\n')).toMatch(problem);
  });

  // Found by an attacker: an app that charged 100x the order's amount passed every Stripe scenario (only the
  // number of charges was judged).
  it('fails an order charged another amount or currency than the order, naming both', () => {
    const charged = (amountMinor: number, currency: string): OrderSnapshot => {
      const base = snapshot(view());
      return { ...base, ledger: { ...base.ledger, charges: [{ paymentId: 'pi_0', amountMinor, currency }] } };
    };
    expect(judgeOrder(charged(199_900, 'EUR')).problems).toEqual([
      `order ${ORDER.slice(0, 8)} was charged 199900 EUR (payment pi_0) but the order is 1999 EUR (minor units)`,
    ]);
    expect(judgeOrder(charged(1999, 'USD')).problems.join('\n')).toMatch(/charged 1999 USD .* the order is 1999 EUR/);
    expect(judgeOrder(charged(1999, 'eur')).problems).toEqual([]);
  });

  it('judges the view and the charges against the money the storm created the order with', () => {
    // The app reports the amount it (wrongly) charged: only the storm's own record of the order shows it.
    const inflated = view();
    const lying = { ...inflated, order: { ...inflated.order, amountMinor: 199_900 } };
    const base = snapshot(lying);
    const input = {
      ...base,
      ledger: { ...base.ledger, charges: [{ paymentId: 'pi_0', amountMinor: 199_900, currency: 'EUR' }] },
    };
    expect(judgeOrder(input).problems).toEqual([]);
    expect(judgeOrder({ ...input, money: { amountMinor: 1999, currency: 'EUR' } }).problems).toEqual([
      `order ${ORDER.slice(0, 8)} shows 199900 EUR but was created for 1999 EUR`,
      `order ${ORDER.slice(0, 8)} was charged 199900 EUR (payment pi_0) but the order is 1999 EUR (minor units)`,
    ]);
  });

  it('fails an order whose charges the sandbox ledger does not describe (amounts unchecked)', () => {
    const base = snapshot(view());
    expect(judgeOrder({ ...base, ledger: { ...base.ledger, charges: [] } }).problems.join('\n')).toMatch(
      /does not say what 1 of its charge\(s\) took/,
    );
  });

  it('reports an order that did not settle before the deadline', () => {
    const running = view({
      status: 'awaiting_payment',
      paidTransitions: 0,
      fulfilments: [],
      jobs: [{ id: 'j1', topic: 'order.fulfil', status: 'running', attempts: 1 }],
    });
    expect(judgeOrder({ ...snapshot(running, 0), timedOut: true }).problems).toEqual([
      `order ${ORDER.slice(0, 8)} did not settle before the deadline (jobs or attempts still in flight)`,
    ]);
  });

  it('counts copies of an already-sent event as duplicates, not forged or tampered copies', () => {
    const log = [
      delivery('evt_1', 'forged-signature'),
      delivery('evt_1', 'attempt'),
      delivery('evt_1', 'duplicate'),
      delivery('evt_1', 'resend'),
      delivery('evt_2', 'attempt'),
      delivery('evt_2', 'parallel-copy'),
      delivery('evt_3', 'tampered-resigned'),
    ];
    expect(duplicatesOf(log)).toBe(3);
    const judged = judgeOrder(snapshot(view(), 1, log));
    expect(judged).toMatchObject({ deliveries: 7, duplicates: 3, charges: 1, paidTransitions: 1, fulfilments: 1 });
    expect(countsOf([judged, judged], 4)).toEqual({
      deliveriesSent: 18,
      duplicates: 6,
      charges: 2,
      paidTransitions: 2,
      fulfilments: 2,
    });
  });

  it('is not settled while a job is queued or running, or a charged order is not yet fulfilled', () => {
    expect(isSettled(snapshot(view()))).toBe(true);
    expect(
      isSettled(snapshot(view({ jobs: [{ id: 'j', topic: 'order.fulfil', status: 'running', attempts: 1 }] }))),
    ).toBe(false);
    expect(isSettled(snapshot(view({ status: 'paid', fulfilments: [] })))).toBe(false);
    expect(
      isSettled(snapshot(view({ status: 'awaiting_payment', paidTransitions: 0, fulfilments: [], jobs: [] }), 0)),
    ).toBe(true);
  });
});

describe('parseOrderView', () => {
  it('reads the OrderView of docs/service.md and names a missing field', () => {
    const body = {
      order: { id: ORDER, status: 'paid', amountMinor: 1999, currency: 'EUR', paidAttemptId: 'a1', createdAtMs: 0 },
      attempts: [{ id: 'a1', status: 'succeeded', providerPaymentId: 'pi_1', amountMinor: 1999, currency: 'EUR' }],
      paidTransitions: 1,
      fulfilments: [],
      jobs: [{ id: 'j1', topic: 'order.fulfil', status: 'queued', attempts: 0, lastError: null }],
      journal: [{ eventId: 'evt_1', status: 'succeeded', decision: 'applied', reason: null }],
      deliveries: [{ provider: 'stripe', eventId: null, decision: 'rejected', outcome: '401' }],
    };
    expect(parseOrderView(body)).toMatchObject({
      paidTransitions: 1,
      deliveries: [{ eventId: null, decision: 'rejected' }],
    });
    expect(() => parseOrderView({ ...body, paidTransitions: '1' })).toThrow(/no valid OrderView \(paidTransitions\)/);
    expect(() => parseOrderView({ ...body, attempts: [{}] })).toThrow(/attempts\[0\]\.id/);
  });
});

function result(id: number, verdict: ScenarioResult['verdict'], reasons: string[] = []): ScenarioResult {
  return {
    id,
    name: `scenario number ${id} with a rather long name that does not fit in the column`,
    defends: 'repeated business effect',
    criterion: 'x',
    verdict,
    reasons,
    notes: [],
    counts: {
      deliveriesSent: 11,
      duplicates: 10,
      charges: 1,
      paidTransitions: 1,
      fulfilments: verdict === 'fail' ? 2 : 1,
    },
    orders: [],
    faultPlan: [],
    durationMs: 10,
  };
}

describe('formatStormTable and stormSummary', () => {
  const report = (results: ScenarioResult[]): StormReport => ({
    target: 'http://127.0.0.1:1',
    provider: 'http://127.0.0.1:2',
    seed: 1,
    startedAtMs: 0,
    durationMs: 12_345,
    passed: !results.some((r) => r.verdict === 'fail'),
    results,
  });

  it('aligns one row per scenario and lists why scenarios failed or were skipped', () => {
    const lines = formatStormTable(
      report([
        result(8, 'fail', ['order 1 fulfilled 2 times']),
        result(14, 'skip', ['needs the admin token']),
        result(16, 'pass'),
      ]),
    ).split('\n');
    expect(lines[0]).toBe(
      `${'scenario'.padEnd(52)}  deliveries sent  duplicates  charges  paid transitions  fulfilments  verdict`,
    );
    expect(lines[1]).toMatch(/^ 8 scenario number 8 with a rather long name that d…\s+11\s+10\s+1\s+1\s+2\s+FAIL$/);
    expect(lines.slice(1, 4).map((line) => line.length)).toEqual([
      lines[0]?.length,
      lines[0]?.length,
      lines[0]?.length,
    ]);
    expect(lines.slice(4)).toEqual(['', 'FAIL 8: order 1 fulfilled 2 times', 'skip 14: needs the admin token']);
  });

  it('summarises passes, failures and skips with the totals', () => {
    expect(stormSummary(report([result(1, 'pass'), result(14, 'skip')]))).toBe(
      'PASS: 1/2 scenarios (1 skipped: 14), 22 deliveries (20 duplicates), 2 charges, 2 paid transitions, 2 fulfilments, 12.3 s',
    );
    expect(stormSummary(report([result(8, 'fail'), result(16, 'fail'), result(1, 'pass')]))).toMatch(
      /^FAIL: 2 of 3 scenarios failed \(8, 16\), 33 deliveries \(30 duplicates\), 3 charges, 3 paid transitions, 5 fulfilments, 12\.3 s$/,
    );
    // One scenario (`payonce demo --only 8`): every count of one is singular.
    const one = result(8, 'pass');
    const single = { ...one, counts: { ...one.counts, deliveriesSent: 1, duplicates: 1, fulfilments: 1 } };
    expect(stormSummary(report([single]))).toBe(
      'PASS: 1/1 scenarios, 1 delivery (1 duplicate), 1 charge, 1 paid transition, 1 fulfilment, 12.3 s',
    );
  });
});
