import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUzumFaults } from '../../packages/sandbox/src/uzum/uzum-pay-faults.js';
import { createUzumPayer } from '../../packages/sandbox/src/uzum/uzum-payer.js';
import { AMOUNT, AUTH, SERVICE_ID } from '../providers/uzum/uzum-fixtures.js';
import type { UzumBench } from '../providers/uzum/uzum-harness.js';
import { type ServedUzum, serveUzum, uzumBenchOn } from './uzum-merchant-app.js';

describe('Uzum sandbox faults', () => {
  it('parses fault lists and refuses unknown names', () => {
    expect(parseUzumFaults('lost-answer, duplicate=2,parallel,reverse')).toEqual({
      lostAnswer: true,
      duplicate: 2,
      parallel: 3,
      reverse: true,
    });
    expect(() => parseUzumFaults('explode')).toThrow(/unknown fault "explode"/);
    expect(() => parseUzumFaults('duplicate=101')).toThrow(/1…100/);
  });
});

/** The fault-injecting payer against payonce's Uzum engine on SQLite: one confirmation, one fulfilment per order. */
describe('Uzum sandbox payer', () => {
  let bench: UzumBench;
  let drop: () => Promise<void>;
  let app: ServedUzum;
  let failNext = 0;
  beforeAll(async () => {
    ({ bench, drop } = await uzumBenchOn());
    app = await serveUzum(bench.merchant, (answer, path) => {
      // A merchant whose /confirm commits but answers 99999 (a crash after the commit): Uzum must ask /status.
      if (path.endsWith('/confirm') && failNext > 0) {
        failNext--;
        return { status: 400, body: JSON.stringify({ serviceId: SERVICE_ID, status: 'FAILED', errorCode: '99999' }) };
      }
      return answer;
    });
  });
  afterAll(async () => {
    await app?.close();
    await drop?.();
  });
  const order = () => ({ params: bench.addOrder(AMOUNT).params, amountTiyin: AMOUNT });
  const payer = (password = AUTH.password) =>
    createUzumPayer({
      merchantUrl: app.url,
      login: AUTH.login,
      password,
      serviceId: SERVICE_ID,
      clock: bench.clock,
      statusPollDelayMs: 1,
    });

  it('pays each order once through lost answers, timeouts, duplicates and parallel copies', async () => {
    const p = payer();
    const faults = parseUzumFaults('lost-answer,timeout,duplicate=2,parallel=4');
    const results = await Promise.all([order(), order(), order()].map((o) => p.pay(o, faults)));
    const ledger = p.ledger.snapshot();
    expect(ledger.mismatches).toEqual([]);
    expect(results.map((r) => r.outcome)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    for (const r of results) expect(await bench.fulfilments(r.transId)).toBe(1);
    expect(ledger.movedTiyin).toBe(3 * AMOUNT);
    expect(new Set(ledger.faults.map((f) => f.what))).toEqual(
      new Set(['lost-answer', 'timeout', 'duplicate', 'parallel=4']),
    );
  });

  it('asks /status after a 99999 to /confirm, and takes the stored CONFIRMED: one fulfilment', async () => {
    const p = payer();
    failNext = 1;
    const result = await p.pay(order());
    const ledger = p.ledger.snapshot();
    expect(ledger.mismatches).toEqual([]);
    expect(result.outcome).toBe('confirmed');
    expect(ledger.statusPolls).toBeGreaterThan(0);
    expect(await bench.fulfilments(result.transId)).toBe(1);
  });

  it('reverses instead of confirming: nothing fulfilled, nothing moved', async () => {
    const p = payer();
    const result = await p.pay(order(), parseUzumFaults('reverse,duplicate'));
    expect(p.ledger.snapshot().mismatches).toEqual([]);
    expect(result.outcome).toBe('reversed');
    expect(await bench.fulfilments(result.transId)).toBe(0);
    expect(p.ledger.snapshot().movedTiyin).toBe(0);
  });

  it('records refusals: an unknown order 10007, a wrong password 10001', async () => {
    const unknown = await payer().pay({ params: { account: 'uzum-sandbox-none' }, amountTiyin: AMOUNT });
    expect(unknown).toMatchObject({ outcome: 'refused', refusedWith: '10007' });
    expect((await payer(`${AUTH.password}-other`).pay(order())).refusedWith).toBe('10001');
  });
});
