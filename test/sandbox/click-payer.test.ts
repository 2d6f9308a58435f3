import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClickFaults } from '../../packages/sandbox/src/click/click-pay-faults.js';
import { createClickPayer } from '../../packages/sandbox/src/click/click-payer.js';
import { signClick } from '../../packages/sandbox/src/click/click-wire.js';
import { AMOUNT_TIYIN, SECRET, SERVICE_ID, SIGNATURES } from '../providers/click/click-fixtures.js';
import type { ClickBench } from '../providers/click/click-harness.js';
import { clickBenchOn, type ServedClick, serveClick } from './click-merchant-app.js';

describe('Click sandbox signing and faults', () => {
  it('signs both formulas as the fixtures do (click/signature 01, 02)', () => {
    for (const fixture of [SIGNATURES.prepare, SIGNATURES.complete]) {
      const fields = Object.fromEntries(new URLSearchParams(fixture.raw_body));
      expect(signClick(fields, fixture.secret)).toBe(fields.sign_string);
    }
  });

  it('parses fault lists and refuses unknown names', () => {
    expect(parseClickFaults('lost-answer, duplicate=2,parallel,failed-payment')).toEqual({
      lostAnswer: true,
      duplicate: 2,
      parallel: 3,
      failedPayment: true,
    });
    expect(() => parseClickFaults('explode')).toThrow(/unknown fault "explode"/);
    expect(() => parseClickFaults('parallel=0')).toThrow(/1…100/);
  });
});

/** The fault-injecting payer against payonce's Click engine on SQLite: one completion, one fulfilment per order. */
describe('Click sandbox payer', () => {
  let bench: ClickBench;
  let drop: () => Promise<void>;
  let app: ServedClick;
  beforeAll(async () => {
    ({ bench, drop } = await clickBenchOn());
    app = await serveClick(bench.merchant);
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });
  const order = () => ({ merchantTransId: bench.addOrder(AMOUNT_TIYIN), amountTiyin: AMOUNT_TIYIN });
  const payer = (secretKey = SECRET) =>
    createClickPayer({ ...app, serviceId: SERVICE_ID, secretKey, clock: bench.clock });

  it('pays each order once through lost answers, timeouts, duplicates and parallel copies', async () => {
    const p = payer();
    const faults = parseClickFaults('lost-answer,timeout,duplicate=2,parallel=4');
    const results = await Promise.all([order(), order(), order()].map((o) => p.pay(o, faults)));
    const ledger = p.ledger.snapshot();
    expect(ledger.mismatches).toEqual([]);
    expect(results.map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    for (const r of results) expect(await bench.fulfilments(r.clickTransId)).toBe(1);
    expect(ledger.movements).toHaveLength(3);
    expect(ledger.movedTiyin).toBe(3 * AMOUNT_TIYIN);
    expect(new Set(ledger.faults.map((f) => f.what))).toEqual(
      new Set(['lost-answer', 'timeout', 'duplicate', 'parallel=4']),
    );
  });

  it('fails a payment at Click: the Complete with error=-5017 is answered -9, nothing fulfilled or moved', async () => {
    const p = payer();
    const result = await p.pay(order(), parseClickFaults('failed-payment,duplicate'));
    expect(p.ledger.snapshot().mismatches).toEqual([]);
    expect(result.outcome).toBe('cancelled');
    expect(await bench.fulfilments(result.clickTransId)).toBe(0);
    expect(p.ledger.snapshot().movedTiyin).toBe(0);
  });

  it('never sends merchant_prepare_id=NaN: a Prepare answered 0 without an id ends the payment with a reason', async () => {
    const actions: string[] = [];
    const noId = await serveClick(bench.merchant, (body, rawBody) => {
      actions.push(new URLSearchParams(rawBody.toString('utf8')).get('action') ?? '');
      const { merchant_prepare_id: _dropped, ...answer } = JSON.parse(body) as Record<string, unknown>;
      return JSON.stringify(answer);
    });
    try {
      const p = createClickPayer({ ...noId, serviceId: SERVICE_ID, secretKey: SECRET, clock: bench.clock });
      const result = await p.pay(order());
      expect(result.outcome).toBe('refused');
      expect(result.reason).toMatch(/^Prepare answered 0 without a merchant_prepare_id \(got none\): no Complete sent/);
      expect(actions).toEqual(['0']); // no Complete, so no NaN
      expect(p.ledger.snapshot().mismatches.map((m) => m.call)).toEqual(['Prepare']);
    } finally {
      await noId.close();
    }
  });

  it('records refusals: an unknown order -5, a wrong key -1; a bad URL is InvalidOption', async () => {
    const unknown = await payer().pay({ merchantTransId: 'click-sandbox-none', amountTiyin: AMOUNT_TIYIN });
    expect(unknown).toMatchObject({ outcome: 'refused', refusedWith: -5 });
    expect((await payer(`${SECRET}-other`).pay(order())).refusedWith).toBe(-1);
    expect(() => createClickPayer({ ...app, prepareUrl: 'ftp://x', serviceId: SERVICE_ID, secretKey: SECRET })).toThrow(
      /http/,
    );
  });
});
