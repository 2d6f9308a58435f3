import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isAccountCode,
  PAYME_CODES,
  PAYME_REASONS,
  PAYME_TIMEOUT_MS,
} from '../../packages/sandbox/src/payme/payme-codes.js';
import { parsePaymeFaults } from '../../packages/sandbox/src/payme/payme-pay-faults.js';
import { createPaymePayer } from '../../packages/sandbox/src/payme/payme-payer.js';
import { AMOUNT, KEY } from '../providers/payme/payme-fixtures.js';
import type { PaymeBench } from '../providers/payme/payme-harness.js';
import { paymeBenchOn, type ServedApp, serveMerchant } from './payme-merchant-app.js';

const FIXTURES = new URL('../../../shared/fixtures/providers/payme/', import.meta.url);
const fixture = (file: string) => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));

describe('Payme sandbox codes', () => {
  it("match Payme's documented codes, reasons and timeout (fixtures payme/errors.json, states-and-reasons.json)", () => {
    const errors = fixture('errors.json');
    const documented = new Set(
      Object.keys({ ...errors.general, ...errors.merchant }).map((k) => Number(k.split('..')[0])),
    );
    for (const [name, value] of Object.entries(PAYME_CODES)) {
      if (name !== 'accountLast') expect(documented, name).toContain(value);
    }
    expect(Object.keys(errors.merchant)).toContain(`${PAYME_CODES.accountFirst}..${PAYME_CODES.accountLast}`);
    expect([isAccountCode(-31050), isAccountCode(-31099), isAccountCode(-31100), isAccountCode(-31049)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const states = fixture('states-and-reasons.json');
    expect(PAYME_TIMEOUT_MS).toBe(states.timeout_ms);
    expect(Object.values(PAYME_REASONS).map(String).sort()).toEqual(Object.keys(states.reasons).sort());
  });

  it('parses fault lists and refuses unknown names', () => {
    expect(parsePaymeFaults('lost-answer, duplicate=2,parallel,expire')).toEqual({
      lostAnswer: true,
      duplicate: 2,
      parallel: 3,
      expire: true,
    });
    expect(() => parsePaymeFaults('explode')).toThrow(/unknown fault "explode"/);
    expect(() => parsePaymeFaults('parallel=0')).toThrow(/1…100/);
  });
});

/** The fault-injecting payer against payonce's engine on SQLite: one perform, one fulfilment per order. */
describe('Payme sandbox payer', () => {
  let bench: PaymeBench;
  let drop: () => Promise<void>;
  let app: ServedApp;
  beforeAll(async () => {
    ({ bench, drop } = await paymeBenchOn());
    app = await serveMerchant(bench.merchant);
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });
  const order = () => ({ account: bench.addOrder(AMOUNT).account, amount: AMOUNT });
  const payer = () =>
    createPaymePayer({
      merchantUrl: app.url,
      key: KEY,
      clock: bench.clock,
      advanceClock: (ms) => bench.clock.advance(ms),
    });

  it('pays each order once through lost answers, timeouts, duplicates and parallel copies', async () => {
    const p = payer();
    const faults = parsePaymeFaults('lost-answer,timeout,duplicate=2,parallel=4');
    const orders = [order(), order(), order()];
    const results = await Promise.all(orders.map((o) => p.pay(o, faults)));
    const ledger = p.ledger.snapshot();
    expect(ledger.mismatches).toEqual([]);
    expect(results.map((r) => r.outcome)).toEqual(['performed', 'performed', 'performed']);
    for (const r of results) expect(await bench.fulfilments(r.paymeId)).toBe(1);
    expect(ledger.movements.filter((m) => m.kind === 'debit')).toHaveLength(3);
    expect(ledger.movedTiyin).toBe(3 * AMOUNT);
    expect(new Set(ledger.faults.map((f) => f.fault))).toEqual(
      new Set(['lost-answer', 'timeout', 'duplicate', 'parallel=4']),
    );
  });

  it('lets 12 hours pass on the injected clock: Perform is -31008, the transaction -1 with reason 4, nothing fulfilled', async () => {
    const p = payer();
    const o = order();
    const result = await p.pay(o, { expire: true });
    expect(p.ledger.snapshot().mismatches).toEqual([]);
    expect(result).toMatchObject({ outcome: 'cancelled', state: -1 });
    expect(p.ledger.transaction(result.paymeId)?.reason).toBe(PAYME_REASONS.timeout);
    expect(await bench.fulfilments(result.paymeId)).toBe(0);
    expect(p.ledger.snapshot().movedTiyin).toBe(0);
  });

  it('cancels while performing: either performed then refunded or cancelled, never both answered, at most one fulfilment', async () => {
    const p = payer();
    const o = order();
    const result = await p.pay(o, { cancelWhilePerforming: true });
    expect(p.ledger.snapshot().mismatches).toEqual([]);
    expect(result.outcome).toBe('cancelled');
    expect(await bench.fulfilments(result.paymeId)).toBe(result.state === -2 ? 1 : 0);
    expect(p.ledger.snapshot().movedTiyin).toBe(0);
  });

  it('records a refused order with its error, and a wrong key as -32504', async () => {
    const refused = await payer().pay({ account: { order_id: 'payme-sandbox-none' }, amount: AMOUNT });
    expect(isAccountCode(refused.refusedWith)).toBe(true);
    const wrong = createPaymePayer({ merchantUrl: app.url, key: `${KEY}-other` });
    expect((await wrong.pay(order())).refusedWith).toBe(PAYME_CODES.insufficientPrivilege);
    expect(() => createPaymePayer({ merchantUrl: 'ftp://x', key: KEY })).toThrow(/http/);
  });
});
