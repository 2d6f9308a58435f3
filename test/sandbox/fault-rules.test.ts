import { describe, expect, it } from 'vitest';
import { InvalidOption } from '../../packages/payonce/src/core/errors.js';
import { FaultRules, faultRulesFileOf } from '../../packages/sandbox/src/faults/fault-rules.js';
import { parseFaults } from '../../packages/sandbox/src/faults/fault-spec.js';

describe('sandbox faults: the Payonce-Fault syntax and rules', () => {
  it('parses a fault list into plan knobs and keeps the names for the ledger', () => {
    expect(parseFaults('drop-after-commit, webhook-duplicate=2, delay=150')).toEqual({
      plan: { responseFault: 'drop-after-commit', duplicateDeliveries: 2, responseDelayMs: 150 },
      names: ['drop-after-commit', 'webhook-duplicate=2', 'delay=150'],
    });
    expect(parseFaults('timeout=900').plan).toEqual({ responseFault: 'hang-before-commit', hangMs: 900 });
    expect(parseFaults('decline=insufficient_funds').plan).toEqual({
      outcome: 'decline',
      declineCode: 'insufficient_funds',
    });
    for (const bad of ['explode', 'delay=soon', 'webhook-duplicate=999', Array(21).fill('delay').join(',')]) {
      expect(() => parseFaults(bad), bad).toThrow(InvalidOption);
    }
  });

  it('rules match method and path pattern, are spent after count, and replay the same draws for a seed', () => {
    const rules = new FaultRules(3);
    rules.add({ method: 'POST', path: '/v1/payment_intents/*/confirm', fault: '500-after-commit', count: 2 });
    expect(rules.take('POST', '/v1/payment_intents/pi_1/confirm').sources).toEqual(['rule:1']);
    expect(rules.take('GET', '/v1/payment_intents/pi_1/confirm').sources).toEqual([]);
    expect(rules.take('POST', '/v1/payment_intents/pi_1/capture').sources).toEqual([]);
    expect(rules.take('POST', '/v1/payment_intents/pi_2/confirm').faults.plan).toEqual({
      responseFault: '500-after-commit',
    });
    expect(rules.take('POST', '/v1/payment_intents/pi_3/confirm').sources).toEqual([]);

    const draws = (seed: number) => {
      const seeded = new FaultRules(seed);
      seeded.add({ path: '/v1/**', fault: 'rate-limit', probability: 0.5 });
      return Array.from({ length: 40 }, () => seeded.take('GET', '/v1/charges/ch_1').sources.length).join('');
    };
    expect(draws(42)).toBe(draws(42));
    expect(draws(42)).not.toBe(draws(43));
    expect(draws(42)).toMatch(/0/);
    expect(draws(42)).toMatch(/1/);
  });

  it('refuses bad rules and faults files with InvalidOption', () => {
    const rules = new FaultRules();
    expect(() => rules.add({ path: 'v1', fault: 'delay' })).toThrow(InvalidOption);
    expect(() => rules.add({ fault: 'delay', probability: 2 })).toThrow(InvalidOption);
    expect(() => rules.add({ fault: 'delay', count: 0 })).toThrow(InvalidOption);
    expect(() => faultRulesFileOf({ rule: [] })).toThrow(InvalidOption);
    expect(faultRulesFileOf([{ fault: 'delay' }])).toEqual({ rules: [{ fault: 'delay' }] });
  });
});
